import { z } from 'zod';
import { MESSAGES } from './errors.js';

/**
 * Shared zod building blocks, so every operation words its field errors the same way.
 */
// Missing fields read "This field is required." everywhere (zod's own text is developer-speak).
z.config({ customError: (issue) => (issue.input === undefined && issue.code === 'invalid_type' ? 'This field is required.' : undefined) });

/** A per-schema message that still lets a missing value read "This field is required.". */
export const orRequired = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'This field is required.' : message);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const zUuid = () => z.string({ error: orRequired(MESSAGES.invalidUuid) }).regex(UUID_RE, MESSAGES.invalidUuid).transform((s) => s.toLowerCase());
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value);

/** Query and multipart values arrive as strings: accept 'true'/'false'/'1'/'0' as booleans. */
export const zBool = () =>
  z.preprocess((v) => {
    if (typeof v === 'string') {
      const s = v.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(s)) return true;
      if (['false', '0', 'no', 'off', ''].includes(s)) return false;
    }
    return v;
  }, z.boolean({ error: orRequired('Must be a valid boolean.') }));

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const numericText = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : blankToUndefined(v));

/** A number that may arrive as a string (query, multipart); a blank value counts as missing. */
export const zNumber = (message = 'A valid number is required.') => z.preprocess(numericText, z.number({ error: orRequired(message) }));

/**
 * An optional number: use this rather than `zNumber().optional()`, which lets '' (an empty query
 * parameter or form field) through to the number check and answers "This field is required.".
 */
export const zOptionalNumber = (message = 'A valid number is required.') => z.preprocess(numericText, z.number({ error: message }).optional());

/** Pagination query parameters; the clamping to each list's maximum happens in `pageParams`. */
export const zPage = () => z.preprocess((v) => (v === undefined || v === '' ? undefined : Number(v)), z.number({ error: 'A valid integer is required.' }).int().min(1, MESSAGES.invalidPage).optional());
export const zPageSize = () => z.preprocess((v) => (v === undefined || v === '' ? undefined : Number(v)), z.number({ error: 'A valid integer is required.' }).int().min(1, 'Ensure this value is greater than or equal to 1.').optional());

/** Optional string that treats '' (common from HTML forms) as absent. */
export const zOptionalText = (max?: number) => {
  const base = max ? z.string().max(max, `Ensure this field has no more than ${max} characters.`) : z.string();
  return z.preprocess((v) => (v === '' ? undefined : v), base.optional());
};

/** Django REST framework's words for the same refusal: the contract's error texts follow DRF's. */
export const NUL_MESSAGE = 'Null characters are not allowed.';

/**
 * Every field of a call's input (query string, JSON body, multipart field, socket payload, path parameter) that holds
 * U+0000 anywhere, in a string or an object key, at any depth: {field: [NUL_MESSAGE]}, or null when there is none.
 * PostgreSQL stores no NUL in text nor in jsonb, so such input is refused here, once, before any rule or handler reads
 * it, rather than stripped: a silently changed text is not what the person sent (docs/architecture.md, "NUL characters").
 * File bytes are not text and are skipped (a file's client-side name is never stored). The walk is iterative, so a
 * deeply nested payload costs time in its size and no stack.
 */
export function nulFieldErrors(input: unknown): Record<string, string[]> | null {
  const out: Record<string, string[]> = {};
  // Each entry knows its parent rather than its whole path, so a deep payload is not copied at every level.
  type Entry = { value: unknown; key: string | null; parent: Entry | null };
  const flag = (entry: Entry | null) => {
    const path: string[] = [];
    for (let at = entry; at && at.key !== null; at = at.parent) path.unshift(at.key);
    out[path.length ? path.join('.') : 'non_field_errors'] = [NUL_MESSAGE];
  };
  const stack: Entry[] = [{ value: input, key: null, parent: null }];
  while (stack.length) {
    const entry = stack.pop()!;
    const { value } = entry;
    if (typeof value === 'string') {
      if (value.includes('\0')) flag(entry);
      continue;
    }
    if (!value || typeof value !== 'object' || isBinary(value)) continue;
    for (const [key, child] of Object.entries(value)) {
      // A key with a NUL names no field of ours: the object that holds it is the field refused.
      if (key.includes('\0')) flag(entry);
      else stack.push({ value: child, key, parent: entry });
    }
  }
  return Object.keys(out).length ? out : null;
}

const isBinary = (value: object): boolean =>
  ArrayBuffer.isView(value) || value instanceof ArrayBuffer || Buffer.isBuffer((value as { buffer?: unknown }).buffer);

/**
 * Turn a zod error into the contract's field format: {field: [message, ...]}.
 * Nested paths are joined with dots; errors without a path become non_field_errors.
 */
export function zodToFieldErrors(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : 'non_field_errors';
    const message = issue.message;
    (out[key] ??= []).includes(message) || out[key].push(message);
  }
  return out;
}
