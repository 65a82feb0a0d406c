import argon2 from 'argon2';
import { platform } from '../../platform/index.js';

/**
 * argon2id, slow on purpose: by default the library's 64 MiB and 3 passes (PASSWORD_HASH_MEMORY_KIB,
 * PASSWORD_HASH_PASSES; the test suite, which registers thousands of users, makes it cheap). Before the platform
 * starts (a benchmark's data generator), the defaults. Verifying reads the cost from the hash itself.
 */
export const hashPassword = (password: string) =>
  argon2.hash(password, {
    type: argon2.argon2id,
    memoryCost: platform.config?.PASSWORD_HASH_MEMORY_KIB ?? 65536,
    timeCost: platform.config?.PASSWORD_HASH_PASSES ?? 3,
  });

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/** Verifying against this when no user matches keeps the timing the same as a wrong password. */
let dummyHash: Promise<string> | null = null;
export const dummyPasswordHash = () => (dummyHash ??= hashPassword('not-a-real-password'));
