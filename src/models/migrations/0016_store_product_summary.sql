-- Each store carries how many products it has and when its newest one was created, kept by triggers on products.
-- Discovery by location (issue 8) then counts a city's products by summing its stores (not by reading thousands of
-- products) and reads a page from the few stores that can hold it: the page's K products all come from stores
-- whose newest product is at least as new as the K-th, so at most K stores (with ties) need a look.

ALTER TABLE stores
  ADD COLUMN products_count integer NOT NULL DEFAULT 0 CHECK (products_count >= 0),
  ADD COLUMN last_product_at timestamptz;

UPDATE stores s
SET products_count = p.n, last_product_at = p.newest
FROM (SELECT store_id, count(*)::int AS n, max(created_at) AS newest FROM products GROUP BY store_id) p
WHERE p.store_id = s.id;

-- A new product: one more, and the newest time only grows (GREATEST() applies to the row version the update
-- locks, so concurrent inserts never lose one).
CREATE FUNCTION products_summary_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE stores
  SET products_count = products_count + 1,
      last_product_at = GREATEST(last_product_at, NEW.created_at)
  WHERE id = NEW.store_id;
  RETURN NULL;
END $$;

-- A removed product: one fewer, and the newest time read again. The store row is locked first, and the max() is a
-- later statement with a fresh snapshot (READ COMMITTED), so a product inserted by a transaction that held the lock
-- before us is seen: last_product_at never falls below a live product's time. (A store deleted in this transaction,
-- whose products go by cascade, matches no row.) NO KEY UPDATE, as the UPDATE itself takes: foreign-key checks of
-- rows that reference the store (new products, orders, shares) are not held up. The service deletes a product
-- after locking its store (products.service.ts), in the order a store's deletion takes them: store, then products.
CREATE FUNCTION products_summary_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM stores WHERE id = OLD.store_id FOR NO KEY UPDATE;
  UPDATE stores
  SET products_count = products_count - 1,
      last_product_at = (SELECT max(created_at) FROM products WHERE store_id = OLD.store_id)
  WHERE id = OLD.store_id;
  RETURN NULL;
END $$;

CREATE TRIGGER products_summary_insert AFTER INSERT ON products
  FOR EACH ROW EXECUTE FUNCTION products_summary_after_insert();
CREATE TRIGGER products_summary_delete AFTER DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION products_summary_after_delete();

-- Products never change store or creation time through the API; should a script do it, treat it as a delete and
-- an insert so both stores stay right.
CREATE FUNCTION products_summary_after_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM stores WHERE id IN (OLD.store_id, NEW.store_id) ORDER BY id FOR NO KEY UPDATE;
  UPDATE stores s
  SET products_count = (SELECT count(*)::int FROM products WHERE store_id = s.id),
      last_product_at = (SELECT max(created_at) FROM products WHERE store_id = s.id)
  WHERE s.id IN (OLD.store_id, NEW.store_id);
  RETURN NULL;
END $$;

CREATE TRIGGER products_summary_move AFTER UPDATE OF store_id, created_at ON products
  FOR EACH ROW WHEN (OLD.store_id IS DISTINCT FROM NEW.store_id OR OLD.created_at IS DISTINCT FROM NEW.created_at)
  EXECUTE FUNCTION products_summary_after_move();
