import { z } from 'zod';
import { zBool, zNumber, zOptionalNumber, zUuid, zodToFieldErrors } from '../../src/core/validation.js';

const fieldErrors = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected a validation error for ${JSON.stringify(input)}`);
  return zodToFieldErrors(result.error);
};

describe('zodToFieldErrors', () => {
  test('when a field is invalid, then the error is {field: [message]}', () => {
    const schema = z.object({ name: z.string().min(3, 'Too short.') });
    expect(fieldErrors(schema, { name: 'ab' })).toEqual({ name: ['Too short.'] });
  });

  test('when fields are missing, then each reads "This field is required."', () => {
    const schema = z.object({ email: z.string(), age: z.number(), id: zUuid() });
    expect(fieldErrors(schema, {})).toEqual({
      email: ['This field is required.'],
      age: ['This field is required.'],
      id: ['This field is required.'],
    });
  });

  test('when a nested field is invalid, then its path is joined with dots', () => {
    const schema = z.object({ location: z.object({ latitude: z.number() }), items: z.array(z.object({ name: z.string() })) });
    expect(fieldErrors(schema, { location: {}, items: [{ name: 'ok' }, {}] })).toEqual({
      'location.latitude': ['This field is required.'],
      'items.1.name': ['This field is required.'],
    });
  });

  test('when an error has no path, then it is reported under non_field_errors', () => {
    const schema = z.object({ a: z.string().optional(), b: z.string().optional() }).refine((v) => v.a || v.b, 'Give a or b.');
    expect(fieldErrors(schema, {})).toEqual({ non_field_errors: ['Give a or b.'] });
  });

  test('when one field fails two checks, then both messages are listed once each', () => {
    const schema = z.object({ code: z.string().min(4, 'Too short.').regex(/^\d+$/, 'Digits only.') });
    expect(fieldErrors(schema, { code: 'ab' })).toEqual({ code: ['Too short.', 'Digits only.'] });
  });
});

describe('zUuid', () => {
  test('when a value is not a UUID, then the message is "Invalid UUID format."', () => {
    const schema = z.object({ post_id: zUuid() });
    expect(fieldErrors(schema, { post_id: 'not-a-uuid' })).toEqual({ post_id: ['Invalid UUID format.'] });
    expect(fieldErrors(schema, { post_id: 42 })).toEqual({ post_id: ['Invalid UUID format.'] });
    expect(fieldErrors(schema, { post_id: '123e4567-e89b-12d3-a456-42661417400' })).toEqual({ post_id: ['Invalid UUID format.'] });
  });

  test('when a UUID is given in upper case, then it is accepted and lower-cased', () => {
    expect(zUuid().parse('123E4567-E89B-12D3-A456-426614174000')).toBe('123e4567-e89b-12d3-a456-426614174000');
  });
});

describe('zBool', () => {
  test.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    [' TRUE ', true],
    ['false', false],
    ['0', false],
    ['no', false],
    ['off', false],
    [true, true],
    [false, false],
  ])('when %p arrives, then it reads as %p', (raw, expected) => {
    expect(zBool().parse(raw)).toBe(expected);
  });

  test('when a value is not a boolean, then the message is "Must be a valid boolean."', () => {
    expect(fieldErrors(z.object({ flag: zBool() }), { flag: 'maybe' })).toEqual({ flag: ['Must be a valid boolean.'] });
  });

  test('when a required boolean is missing, then "This field is required."', () => {
    expect(fieldErrors(z.object({ flag: zBool() }), {})).toEqual({ flag: ['This field is required.'] });
  });
});

describe('zNumber', () => {
  test('when a number arrives as a string, then it is coerced', () => {
    expect(zNumber().parse('12.5')).toBe(12.5);
    expect(zNumber().parse(' -3 ')).toBe(-3);
    expect(zNumber().parse(7)).toBe(7);
  });

  test('when the text is not a number, then the given message is used', () => {
    expect(fieldErrors(z.object({ lat: zNumber('Invalid coordinate value.') }), { lat: 'north' })).toEqual({ lat: ['Invalid coordinate value.'] });
    expect(fieldErrors(z.object({ n: zNumber() }), { n: 'abc' })).toEqual({ n: ['A valid number is required.'] });
  });

  test('when a blank string arrives for a required number, then it counts as missing', () => {
    expect(fieldErrors(z.object({ n: zNumber() }), { n: '' })).toEqual({ n: ['This field is required.'] });
    expect(fieldErrors(z.object({ n: zNumber() }), { n: '  ' })).toEqual({ n: ['This field is required.'] });
  });
});

describe('zOptionalNumber', () => {
  test('when the value is blank or absent, then it is undefined', () => {
    const schema = z.object({ distance: zOptionalNumber() });
    expect(schema.parse({ distance: '' })).toEqual({ distance: undefined });
    expect(schema.parse({})).toEqual({});
  });

  test('when the value is numeric text, then it is coerced; otherwise the message is given', () => {
    const schema = z.object({ distance: zOptionalNumber('Enter a distance in km.') });
    expect(schema.parse({ distance: '2.5' })).toEqual({ distance: 2.5 });
    expect(fieldErrors(schema, { distance: 'far' })).toEqual({ distance: ['Enter a distance in km.'] });
  });
});
