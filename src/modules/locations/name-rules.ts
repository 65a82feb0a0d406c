import { AppError, fieldError } from '../../core/errors.js';
import { INAPPROPRIATE_WORDS } from './inappropriate-words.js';
import { foldName } from './name-similarity.js';

/**
 * What a suggested location name must be (contract: 2 to 100 characters of letters, digits and basic
 * punctuation, not inappropriate). Spaces are trimmed and collapsed before the checks.
 */
const ALLOWED = /^[\p{L}\p{M}\p{N} .,'’&()\-/#!?:]+$/u;
export const NAME_CHARACTERS_MESSAGE = 'Name must be 2 to 100 characters of letters, digits and basic punctuation.';
export const INAPPROPRIATE_MESSAGE = 'Name contains inappropriate content';

export const normaliseName = (raw: string) => raw.replace(/\s+/g, ' ').trim();

export function isInappropriate(name: string): boolean {
  return foldName(name).split(' ').some((word) => INAPPROPRIATE_WORDS.has(word));
}

/** The cleaned name, or an AppError: a field error under `field`, or the contract's inappropriate-content error. */
export function validateSuggestedName(raw: unknown, field: string): string {
  if (typeof raw !== 'string') throw fieldError(field, 'This field is required.');
  const name = normaliseName(raw);
  const length = [...name].length;
  // A name needs at least one letter or digit: "--" is two characters of punctuation, not a name.
  if (length < 2 || length > 100 || !ALLOWED.test(name) || !/[\p{L}\p{N}]/u.test(name)) throw fieldError(field, NAME_CHARACTERS_MESSAGE);
  if (isInappropriate(name)) throw new AppError(400, { error: INAPPROPRIATE_MESSAGE });
  return name;
}
