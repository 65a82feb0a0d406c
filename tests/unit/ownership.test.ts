import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../src/core/errors.js';
import { isOwner, requireOwner } from '../../src/core/ownership.js';

/** The one ownership check (src/core/ownership.ts), and that no module goes back to comparing ids by hand. */
const alice = { id: 'alice' };

function refusal(run: () => void): { status: number; body: unknown } | null {
  try {
    run();
    return null;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.status, body: err.body };
  }
}

describe('requireOwner', () => {
  test('when the caller is the owner, or one of the owners, then it passes', () => {
    expect(refusal(() => requireOwner(alice, 'alice'))).toBeNull();
    expect(refusal(() => requireOwner(alice, ['bob', 'alice']))).toBeNull();
  });

  test("when the caller is not an owner, then 403 with the contract's detail, or the module's own", () => {
    expect(refusal(() => requireOwner(alice, 'bob'))).toEqual({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
    expect(refusal(() => requireOwner(alice, 'bob', { detail: 'You do not own this store.' }))).toEqual({ status: 403, body: { detail: 'You do not own this store.' } });
  });

  test('when the module hides the thing from strangers, then the refusal is the 404 of a missing id', () => {
    expect(refusal(() => requireOwner(alice, ['bob', null], { hide: true }))).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });

  test('when an owner is gone (null), then nobody matches it', () => {
    expect(isOwner(alice, null)).toBe(false);
    expect(isOwner(alice, [null, undefined])).toBe(false);
  });
});

describe('ownership checks in the modules', () => {
  test('when a module checks an owner, then it calls requireOwner instead of comparing ids and throwing by hand', () => {
    const byHand: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && /!==? ctx\.user\.id\)? throw (forbidden|notFound)\(/.test(fs.readFileSync(file, 'utf8'))) byHand.push(file);
      }
    };
    walk(path.resolve('src/modules'));
    expect(byHand).toEqual([]);
  });
});
