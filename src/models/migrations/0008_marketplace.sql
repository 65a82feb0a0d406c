-- Marketplace (issue 8): stores, products and their images, orders, reviews; each store carries its location's
-- hierarchy levels (place_levels, kept by triggers) for product discovery by location.

CREATE TABLE stores (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  -- Letters, digits, hyphens, underscores; unique regardless of case (stores_slug_key).
  slug text NOT NULL CHECK (slug ~ '^[A-Za-z0-9_-]{1,50}$'),
  description text NOT NULL DEFAULT '',
  social_url text NOT NULL DEFAULT '',
  logo text,
  banner text,
  location_id uuid REFERENCES locations(id) ON DELETE SET NULL,
  -- The store's public position: given by the owner, or its location's published centre (never the owner's point).
  latitude double precision CHECK (latitude BETWEEN -90 AND 90),
  longitude double precision CHECK (longitude BETWEEN -180 AND 180),
  point geography(Point, 4326),
  -- No foreign key yet: communities arrive in 0009 (the lead adds the constraint when merging).
  community_id uuid,
  -- The location's 17 hierarchy levels, broad to narrow, lower-cased ('' for none), kept by the triggers below:
  -- discovery by location matches stores on them without reading the (many) locations of a city.
  place_levels text[] NOT NULL DEFAULT '{}',
  is_verified boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX stores_slug_key ON stores (lower(slug));
CREATE INDEX stores_owner_idx ON stores (owner_id, created_at, id);
CREATE INDEX stores_location_idx ON stores (location_id);
CREATE INDEX stores_place_levels_gin ON stores USING gin (place_levels);
CREATE INDEX stores_point_gix ON stores USING gist (point);
CREATE INDEX stores_created_idx ON stores (created_at DESC, id DESC);
CREATE INDEX stores_name_trgm ON stores USING gin (name gin_trgm_ops);
CREATE INDEX stores_description_trgm ON stores USING gin (description gin_trgm_ops);

CREATE TABLE products (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description text NOT NULL DEFAULT '',
  category text NOT NULL CHECK (category IN ('electronics', 'apparel', 'home_garden', 'food_beverage', 'health_beauty',
    'sports_outdoors', 'toys_games', 'arts_crafts', 'books_music', 'automotive', 'misc')),
  stock integer NOT NULL CHECK (stock >= 0),
  price_type text NOT NULL DEFAULT 'fixed' CHECK (price_type IN ('fixed', 'negotiable', 'variable')),
  price numeric(12, 2) CHECK (price >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT products_fixed_price_check CHECK (price_type <> 'fixed' OR price IS NOT NULL)
);
-- (store_id, created_at DESC, id DESC): a store's products newest first, and the join of discovery by location.
CREATE INDEX products_store_created_idx ON products (store_id, created_at DESC, id DESC);
CREATE INDEX products_created_idx ON products (created_at DESC, id DESC);
CREATE INDEX products_category_idx ON products (category, created_at DESC, id DESC);
CREATE INDEX products_name_trgm ON products USING gin (name gin_trgm_ops);
CREATE INDEX products_description_trgm ON products USING gin (description gin_trgm_ops);

CREATE TABLE product_images (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  -- Storage key under products/images/ (disk or S3); serializers turn it into an absolute URL.
  image text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX product_images_product_idx ON product_images (product_id, created_at, id);

-- An order keeps what it was about when product or store go away: the seller, the unit price, the total.
CREATE TABLE orders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  product_id uuid REFERENCES products(id) ON DELETE SET NULL,
  store_id uuid REFERENCES stores(id) ON DELETE SET NULL,
  seller_id uuid REFERENCES users(id) ON DELETE SET NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price numeric(12, 2) NOT NULL CHECK (unit_price >= 0),
  total_price numeric(12, 2) NOT NULL CHECK (total_price >= 0),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'shipped', 'delivered')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_user_created_idx ON orders (user_id, created_at DESC, id DESC);
CREATE INDEX orders_seller_created_idx ON orders (seller_id, created_at DESC, id DESC);
CREATE INDEX orders_user_updated_idx ON orders (user_id, updated_at);
CREATE INDEX orders_seller_updated_idx ON orders (seller_id, updated_at);

CREATE TABLE reviews (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
  comment text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX reviews_user_product_key ON reviews (user_id, product_id);
CREATE INDEX reviews_product_created_idx ON reviews (product_id, created_at DESC, id DESC);
CREATE INDEX reviews_created_idx ON reviews (created_at DESC, id DESC);

-- A location's hierarchy levels as stores.place_levels holds them (the order of HIERARCHY_LEVELS in src/models/locations.ts).
CREATE FUNCTION location_place_levels(l locations) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY[coalesce(lower(l.country), ''), coalesce(lower(l.state), ''), coalesce(lower(l.county), ''),
    coalesce(lower(l.district), ''), coalesce(lower(l.city), ''), coalesce(lower(l.town), ''), coalesce(lower(l.village), ''),
    coalesce(lower(l.hamlet), ''), coalesce(lower(l.municipality), ''), coalesce(lower(l.suburb), ''), coalesce(lower(l.borough), ''),
    coalesce(lower(l.quarter), ''), coalesce(lower(l.neighbourhood), ''), coalesce(lower(l.road), ''), coalesce(lower(l.building), ''),
    coalesce(lower(l.commercial), ''), coalesce(lower(l.amenity), '')]
$$;

-- Whichever code sets a store's location, its levels follow.
CREATE FUNCTION stores_copy_place_levels() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.place_levels := coalesce((SELECT location_place_levels(l) FROM locations l WHERE l.id = NEW.location_id), '{}');
  RETURN NEW;
END
$$;
CREATE TRIGGER stores_place_levels
  BEFORE INSERT OR UPDATE OF location_id ON stores
  FOR EACH ROW EXECUTE FUNCTION stores_copy_place_levels();

-- Whichever code changes a location's levels (smart_update fills missing ones), its stores follow.
CREATE FUNCTION locations_push_place_levels() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF location_place_levels(OLD) IS DISTINCT FROM location_place_levels(NEW) THEN
    UPDATE stores SET place_levels = location_place_levels(NEW) WHERE location_id = NEW.id;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER locations_place_levels
  AFTER UPDATE OF country, state, county, district, city, town, village, hamlet, municipality, suburb, borough, quarter,
    neighbourhood, road, building, commercial, amenity ON locations
  FOR EACH ROW EXECUTE FUNCTION locations_push_place_levels();
