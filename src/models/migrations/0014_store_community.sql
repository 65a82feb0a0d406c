-- A store's community (0008 kept it as a bare uuid while the communities module was built beside it).
-- Deleting a community unties its stores rather than deleting them.
UPDATE stores SET community_id = NULL
  WHERE community_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM communities c WHERE c.id = stores.community_id);
ALTER TABLE stores
  ADD CONSTRAINT stores_community_id_fkey FOREIGN KEY (community_id) REFERENCES communities (id) ON DELETE SET NULL;
CREATE INDEX stores_community_idx ON stores (community_id) WHERE community_id IS NOT NULL;
