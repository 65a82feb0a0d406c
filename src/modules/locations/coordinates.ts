import { AppError } from '../../core/errors.js';

/**
 * Coordinates of the locations endpoints. Any bad value gives the contract's coordinate error on both
 * fields; smart_update sent without coordinates gives its own error instead (contract error table).
 */
export const COORDINATE_ERROR_BODY = { longitude: ['Invalid coordinate value.'], latitude: ['Invalid coordinate value.'] };
export const MISSING_COORDINATES_BODY = { error: 'Valid latitude and longitude are required' };

export interface Coordinates {
  latitude: number;
  longitude: number;
}

const isMissing = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Degrees within ±limit, as a number or numeric string, rounded to the stored 8 decimals; else null. */
export function readCoordinate(v: unknown, limit: number): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || Math.abs(n) > limit) return null;
  return Math.round(n * 1e8) / 1e8;
}

export function parseCoordinates(input: { latitude?: unknown; longitude?: unknown }, opts: { whenMissing: 'smart_update' | 'invalid' | 'optional' }): Coordinates | null {
  if (isMissing(input.latitude) && isMissing(input.longitude)) {
    if (opts.whenMissing === 'optional') return null;
    throw new AppError(400, opts.whenMissing === 'smart_update' ? MISSING_COORDINATES_BODY : COORDINATE_ERROR_BODY);
  }
  if (opts.whenMissing === 'smart_update' && (isMissing(input.latitude) || isMissing(input.longitude))) throw new AppError(400, MISSING_COORDINATES_BODY);
  const latitude = readCoordinate(input.latitude, 90);
  const longitude = readCoordinate(input.longitude, 180);
  if (latitude === null || longitude === null) throw new AppError(400, COORDINATE_ERROR_BODY);
  return { latitude, longitude };
}
