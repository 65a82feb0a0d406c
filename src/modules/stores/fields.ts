import { z } from 'zod';
import { MESSAGES } from '../../core/errors.js';
import { zNumber, zUuid } from '../../core/validation.js';

/** Field rules shared by the marketplace operations, worded as the rest of the contract words them. */
export const maxChars = (n: number) => `Ensure this field has no more than ${n} characters.`;
export const BLANK = 'This field may not be blank.';

export const zName = () => z.string().trim().min(1, BLANK).max(255, maxChars(255));
export const zDescription = () => z.preprocess((v) => (v === null ? '' : v), z.string().max(5000, maxChars(5000)));

/** An optional id field of a form: '' counts as absent, null clears it where clearing is allowed. */
export const zOptionalUuid = () => z.preprocess((v) => (v === '' ? undefined : v), zUuid().nullable().optional());

/** `choice` of `choices`, with Django's wording for anything else. */
export const zChoice = <T extends readonly [string, ...string[]]>(choices: T) =>
  z.enum(choices, { error: (issue) => (issue.input === undefined ? 'This field is required.' : `"${String(issue.input)}" is not a valid choice.`) });

/** A whole number from JSON or a form field, within [min, max] (PostgreSQL integer at most). */
export const zWhole = (min: number, max = 2_147_483_647) =>
  zNumber('A valid integer is required.')
    .refine((v) => Number.isInteger(v), 'A valid integer is required.')
    .refine((v) => v >= min, `Ensure this value is greater than or equal to ${min}.`)
    .refine((v) => v <= max, `Ensure this value is less than or equal to ${max}.`);

const COORDINATE_ERROR = 'Invalid coordinate value.';
export const zCoordinate = (limit: number) =>
  zNumber(COORDINATE_ERROR)
    .refine((v) => Math.abs(v) <= limit, COORDINATE_ERROR)
    .transform((v) => Math.round(v * 1e8) / 1e8);

/** A list of ids from JSON (array), a form (repeated field, `a[]`, a JSON array text or comma-separated text). */
export const zUuidList = () =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    const text = v.trim();
    if (text.startsWith('[')) {
      try {
        return JSON.parse(text);
      } catch {
        return v;
      }
    }
    return text === '' ? [] : text.split(',').map((s) => s.trim());
  }, z.array(zUuid(), { error: MESSAGES.invalidUuid }).max(100, 'Ensure this field has no more than 100 elements.'));
