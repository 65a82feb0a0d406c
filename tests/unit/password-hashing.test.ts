import { loadConfig } from '../../src/platform/config.js';
import { hashPassword, verifyPassword } from '../../src/modules/accounts/passwords.js';

/** Password hashes are argon2id at 64 MiB and 3 passes unless configured otherwise (docs/configuration.md). */
test('when nothing is configured, then the hashing cost is 64 MiB and 3 passes', () => {
  const config = loadConfig({});
  expect(config.PASSWORD_HASH_MEMORY_KIB).toBe(65536);
  expect(config.PASSWORD_HASH_PASSES).toBe(3);
});

test('when a password is hashed before the platform starts (a benchmark generating data), then at the default cost, and it verifies', async () => {
  const hash = await hashPassword('correct-horse-battery');
  expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
  expect(await verifyPassword(hash, 'correct-horse-battery')).toBe(true);
  expect(await verifyPassword(hash, 'wrong-horse-battery')).toBe(false);
});

test('when the cost is set below 1 MiB or 1 pass, then the configuration is refused', () => {
  expect(() => loadConfig({}, { PASSWORD_HASH_MEMORY_KIB: '512' })).toThrow(/PASSWORD_HASH_MEMORY_KIB/);
  expect(() => loadConfig({}, { PASSWORD_HASH_PASSES: '0' })).toThrow(/PASSWORD_HASH_PASSES/);
});
