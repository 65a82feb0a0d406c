import { z } from 'zod';

/** One of `choices`, with the contract's wording for a wrong or missing value (as the other modules word it). */
export const zChoiceOf = <T extends readonly [string, ...string[]]>(choices: T) =>
  z.enum(choices, { error: (issue) => (issue.input === undefined ? 'This field is required.' : `"${String(issue.input)}" is not a valid choice.`) });

/** Optional free text of at most `max` characters (null and absent alike). */
export const zBoundedText = (max: number) => z.string().max(max, `Ensure this field has no more than ${max} characters.`).nullish();
