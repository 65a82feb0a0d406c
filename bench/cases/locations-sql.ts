/**
 * The nearby query run directly through the pool, next to the operation: what the database costs alone.
 * NEARBY_AS_SERVICE mirrors nearbyLocations in src/modules/locations/locations.service.ts (keep the two in
 * step; the service breaks ties on the 100 rows in JS, here the outer ORDER BY does). NEARBY_SQL_TIEBREAK is
 * the earlier form, kept to show what the `, id` tie-breaker costs: with it PostgreSQL fetches every row within
 * the distance and sorts them instead of letting the GiST index answer in distance order.
 */
const POINT = 'ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography';
const COLUMNS = `id, name, confidence_score, estimated_radius, total_users, ST_Distance(center, ${POINT}) AS distance`;

export const NEARBY_SQL_TIEBREAK = `SELECT ${COLUMNS} FROM locations WHERE ST_DWithin(center, ${POINT}, $3)
  ORDER BY center <-> ${POINT}, id LIMIT 100`;

export const NEARBY_AS_SERVICE = `SELECT * FROM (SELECT ${COLUMNS} FROM locations WHERE ST_DWithin(center, ${POINT}, $3)
  ORDER BY center <-> ${POINT} LIMIT 100) nearest ORDER BY distance, id`;
