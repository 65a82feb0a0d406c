import { z } from 'zod';
import { orRequired } from '../../core/validation.js';

/**
 * Money is numeric(12,2): at most 10 digits before the point and 2 after, two-decimal strings in JSON.
 * Amounts are handled as strings (and cents as bigint where they are multiplied), never as floats.
 */
const MAX_WHOLE_DIGITS = 10;
export const MAX_CENTS = 10n ** 12n - 1n;

const DECIMAL_RE = /^(\d+)(?:\.(\d*))?$/;

/** Django's DecimalField messages, so clients see the wording they know from the rest of the contract. */
export function moneyProblem(text: string): string | null {
  const m = DECIMAL_RE.exec(text);
  if (!m) return 'A valid number is required.';
  const whole = m[1].replace(/^0+(?=\d)/, '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > 2) return 'Ensure that there are no more than 2 decimal places.';
  if (whole.length > MAX_WHOLE_DIGITS) return `Ensure that there are no more than ${MAX_WHOLE_DIGITS} digits before the decimal point.`;
  return null;
}

/** '7' → '7.00', '0012.5' → '12.50' (input already checked by moneyProblem). */
export function normalizeMoney(text: string): string {
  const [, whole, fraction = ''] = DECIMAL_RE.exec(text)!;
  return `${BigInt(whole)}.${(fraction.replace(/0+$/, '') + '00').slice(0, 2)}`;
}

export const toCents = (money: string): bigint => {
  const [whole, fraction = ''] = money.split('.');
  return BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
};
export const fromCents = (cents: bigint): string => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

/**
 * A price from JSON (number or string) or a form field (string); '' and null mean "no price". Negative amounts
 * and anything beyond numeric(12,2) are field errors, never a database error.
 */
export const zMoney = () =>
  z.preprocess(
    (v) => (v === '' ? null : typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: orRequired('A valid number is required.') })
      .superRefine((v, ctx) => {
        if (v.startsWith('-')) return void ctx.addIssue({ code: 'custom', message: 'Ensure this value is greater than or equal to 0.' });
        const problem = moneyProblem(v);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .transform(normalizeMoney)
      .nullable(),
  );
