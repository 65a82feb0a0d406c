import { sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import { CELL_MARGIN_M } from '../locations/public-grid.js';
import { MAX_RADIUS_M } from '../locations/boundary-policy.js';
import { cachedScope } from './scope-cache.js';
import type { ScopedPlace } from './scoped-place.js';

/**
 * Which places a feed reads (docs/modules/feeds.md). Everything here is measured on what locations publish (the grid
 * cell of their centre and their published radius, public-grid.ts), never on anyone's point.
 *
 * - Neighbours of a place: places whose published boundary comes within NEIGHBOUR_GAP_M of its own, i.e. the
 *   distance between published centres is at most r1 + r2 + gap; the nearest MAX_NEIGHBOURS of them.
 * - The wider area (general feed): the neighbours, plus the places of the same city (same city, state and
 *   country names, case-insensitive), or, for a place without a city name, the places within AREA_RADIUS_M;
 *   the nearest MAX_AREA_PLACES of them.
 *
 * Distances are on the sphere (use_spheroid false): a penalty needs no millimetres, and the spheroid's
 * arithmetic made this lookup some ten times slower.
 *
 * Each place comes with its distance penalty in rank milliseconds (ranking.ts): the caller's own place 0, others
 * PENALTY_MS_PER_KM per km between published centres, and UNKNOWN_DISTANCE_PENALTY for a place
 * without coordinates (a place made from names alone).
 */
export const NEIGHBOUR_GAP_M = 1000;
export const MAX_NEIGHBOURS = 24;
export const AREA_RADIUS_M = 20_000;
export const MAX_AREA_PLACES = 100;
/** Rank milliseconds per km: half an hour of recency. */
export const PENALTY_MS_PER_KM = 1_800_000;
export const UNKNOWN_DISTANCE_PENALTY = 5 * PENALTY_MS_PER_KM;

export type { ScopedPlace };

export type PlaceHead = {
  id: string;
  name: string;
};

export async function findPlace(id: string, db: DbOrTx = currentDb()): Promise<PlaceHead | null> {
  const { rows } = await db.execute<PlaceHead>(sql`SELECT id, name FROM locations WHERE id = ${id}::uuid`);
  return rows[0] ?? null;
}

/** Where the caller lives (null: no location). */
export async function findHome(userId: string, db: DbOrTx = currentDb()): Promise<PlaceHead | null> {
  const { rows } = await db.execute<PlaceHead>(sql`
    SELECT l.id, l.name FROM users u JOIN locations l ON l.id = u.location_id WHERE u.id = ${userId}::uuid`);
  return rows[0] ?? null;
}

/** A constant written into the statement (not a parameter: the planner sees it, also in a generic plan). */
const raw = (n: number) => sql.raw(String(n));

type PlaceRow = { id: string; penalty: string | number };
const toPlaces = (rows: PlaceRow[]): ScopedPlace[] => rows.map((r) => ({ locationId: r.id, penalty: Number(r.penalty) }));

/** The place and its neighbours (the GiST index on locations.center, nearest first), cached (scope-cache.ts). */
export function neighbourhoodOf(locationId: string): Promise<ScopedPlace[]> {
  return cachedScope(`neighbourhood:${locationId}`, () => findNeighbourhood(locationId));
}

/**
 * The rows `(location_id, penalty)` of the neighbourhood of the one place in relation `home` (columns id,
 * center, estimated_radius; no row: no place): the place first, then its neighbours nearest first. A fragment,
 * so a feed page reads them in its own statement (ranking.ts).
 */
export function neighbourhoodPlacesSql(home: SQL): SQL {
  // Any neighbour's centre lies within the place's radius + the largest radius + the gap.
  const reach = MAX_RADIUS_M + NEIGHBOUR_GAP_M;
  return sql`
    SELECT me.id AS location_id, 0::bigint AS penalty FROM ${home} me
    UNION ALL
    (SELECT o.id, round(${raw(PENALTY_MS_PER_KM)} * ST_Distance(o.center, me.center, false) / 1000)::bigint
    FROM ${home} me
    CROSS JOIN LATERAL (
      SELECT o.id, o.center, o.estimated_radius, o.center <-> me.center AS dist FROM locations o
      WHERE o.id <> me.id AND ST_DWithin(o.center, me.center, me.estimated_radius + ${raw(reach)}, false)
      ORDER BY o.center <-> me.center
      LIMIT ${raw(MAX_NEIGHBOURS * 4)}
    ) o
    WHERE me.center IS NOT NULL
      AND ST_DWithin(o.center, me.center, me.estimated_radius + o.estimated_radius + ${raw(NEIGHBOUR_GAP_M)}, false)
    ORDER BY o.dist
    LIMIT ${raw(MAX_NEIGHBOURS)})`;
}

/**
 * The rows `(location_id, penalty)` of the wider area of the place in relation `home` (columns id, center,
 * estimated_radius, city, state, country): its neighbourhood, then the rest of its city (or, for a place
 * without a city name, the places within AREA_RADIUS_M), nearest first, MAX_AREA_PLACES in all.
 */
export function areaPlacesSql(home: SQL): SQL {
  return sql`
    WITH hood AS MATERIALIZED (${neighbourhoodPlacesSql(home)})
    SELECT location_id, penalty FROM (
      SELECT hood.location_id, hood.penalty, 0 AS tier, 0::float8 AS dist FROM hood
      UNION ALL
      SELECT o.id,
             CASE WHEN me.center IS NULL OR o.center IS NULL THEN ${raw(UNKNOWN_DISTANCE_PENALTY)}
                  ELSE round(${raw(PENALTY_MS_PER_KM)} * ST_Distance(o.center, me.center, false) / 1000)::bigint END,
             1, o.dist
      FROM ${home} me
      CROSS JOIN LATERAL (
        SELECT o.id, o.center, o.center <-> me.center AS dist FROM locations o
        WHERE o.id <> me.id AND (
          CASE WHEN me.city IS NOT NULL AND me.city <> ''
               THEN lower(o.city) = lower(me.city)
                    AND lower(coalesce(o.state, '')) = lower(coalesce(me.state, ''))
                    AND lower(coalesce(o.country, '')) = lower(coalesce(me.country, ''))
               ELSE me.center IS NOT NULL AND ST_DWithin(o.center, me.center, ${raw(AREA_RADIUS_M)}, false) END)
        ORDER BY o.center <-> me.center
        LIMIT ${raw(MAX_AREA_PLACES)}
      ) o
      WHERE o.id NOT IN (SELECT location_id FROM hood)
    ) a
    ORDER BY tier, dist NULLS LAST
    LIMIT ${raw(MAX_AREA_PLACES)}`;
}

async function findNeighbourhood(locationId: string, db: DbOrTx = currentDb()): Promise<ScopedPlace[]> {
  const { rows } = await db.execute<PlaceRow>(sql`
    WITH home AS (SELECT id, center, estimated_radius FROM locations WHERE id = ${locationId}::uuid)
    SELECT location_id AS id, penalty FROM (${neighbourhoodPlacesSql(sql`home`)}) hood`);
  return toPlaces(rows);
}
