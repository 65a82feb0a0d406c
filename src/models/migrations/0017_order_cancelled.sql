-- Orders can be cancelled (issue 22, DESIGN.md section 8): the buyer while pending, the seller until shipped.
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN ('pending', 'processing', 'shipped', 'delivered', 'cancelled'));

-- The units one buyer's pending orders hold of one product (ORDER_MAX_PENDING_UNITS), summed on every order.
CREATE INDEX orders_user_pending_product_idx ON orders (user_id, product_id) WHERE status = 'pending';
