import { boundedRadius, isBoundaryRecalculationDue } from '../../src/modules/locations/boundary-policy.js';
import { areaLockKeys } from '../../src/modules/locations/area-lock.js';
import { isInappropriate, validateSuggestedName } from '../../src/modules/locations/name-rules.js';
import { AppError } from '../../src/core/errors.js';

describe('boundary radius and recalculation policy', () => {
  test('when the 90th percentile distance is below 200 m or above 2 km, then the radius is bounded to 200..2000', () => {
    expect(boundedRadius(0)).toBe(200);
    expect(boundedRadius(199.4)).toBe(200);
    expect(boundedRadius(734.6)).toBe(735);
    expect(boundedRadius(2000.4)).toBe(2000);
    expect(boundedRadius(15000)).toBe(2000);
  });

  test('when there is no distance to go by, then the initial 500 m stays', () => {
    expect(boundedRadius(null)).toBe(500);
    expect(boundedRadius(Number.NaN)).toBe(500);
  });

  test('when a join brings the count to 2..5, 10, 25, 50, 100 or a multiple of 100, then the boundary is recalculated; otherwise not', () => {
    const due = [...Array(1001).keys()].filter(isBoundaryRecalculationDue);
    expect(due).toEqual([2, 3, 4, 5, 10, 25, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  });

  test('when two points are within 500 m, then their creation locks share a cell', () => {
    const a = areaLockKeys(-50.0249, -120.0001);
    const b = areaLockKeys(-50.0251, -119.9999);
    expect(a.some((k) => b.includes(k))).toBe(true);
    const far = areaLockKeys(-51, -120);
    expect(a.some((k) => far.includes(k))).toBe(false);
  });
});

describe('suggested name rules', () => {
  const reject = (name: unknown) => {
    try {
      validateSuggestedName(name, 'name');
    } catch (err) {
      return { status: (err as AppError).status, body: (err as AppError).body };
    }
    return null;
  };

  test('when a name is 2 to 100 letters, digits and basic punctuation, then it is accepted, spaces collapsed', () => {
    expect(validateSuggestedName('  Saint-Jean   d’Arc #2 ', 'name')).toBe('Saint-Jean d’Arc #2');
    expect(validateSuggestedName('Zürich Nord', 'name')).toBe('Zürich Nord');
  });

  test('when a name is too short, too long or has other symbols, then it is a field error', () => {
    const message = { name: ['Name must be 2 to 100 characters of letters, digits and basic punctuation.'] };
    expect(reject('A')).toEqual({ status: 400, body: message });
    expect(reject('x'.repeat(101))).toEqual({ status: 400, body: message });
    expect(reject('<script>')).toEqual({ status: 400, body: message });
    expect(reject('--')).toEqual({ status: 400, body: message });
  });

  test('when a name contains a listed word, then the contract error; words that merely contain one pass', () => {
    expect(reject('Shit Street')).toEqual({ status: 400, body: { error: 'Name contains inappropriate content' } });
    expect(isInappropriate('Scunthorpe')).toBe(false);
    expect(isInappropriate('Essex Dickens Road')).toBe(false);
  });
});
