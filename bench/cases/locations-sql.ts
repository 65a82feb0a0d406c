/**
 * The nearby query run directly through the pool, next to the operation: what the database costs alone,
 * and the same query in the form that lets the GiST index answer in distance order (the proposed fix).
 * A copy of nearbyLocations in src/modules/locations/locations.service.ts: keep the two in step.
 */
const POINT = 'ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography';
const COLUMNS = `id, name, confidence_score, estimated_radius, total_users, ST_Distance(center, ${POINT}) AS distance`;

/** As the service runs it: the `, id` tie-breaker makes PostgreSQL fetch every row within the distance and sort them. */
export const NEARBY_AS_SERVICE = `SELECT ${COLUMNS} FROM locations WHERE ST_DWithin(center, ${POINT}, $3)
  ORDER BY center <-> ${POINT}, id LIMIT 100`;

/** KNN: ordered by `<->` alone, the index scan stops after the 100 nearest; ties are broken on those 100 only. */
export const NEARBY_KNN = `SELECT * FROM (SELECT ${COLUMNS} FROM locations WHERE ST_DWithin(center, ${POINT}, $3)
  ORDER BY center <-> ${POINT} LIMIT 100) nearest ORDER BY distance, id`;
