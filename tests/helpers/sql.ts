import { platform } from '../../src/platform/index.js';

/**
 * Direct SQL on the running app's own pool, for arranging what the API cannot (an expired code,
 * a deleted user) and for checking columns the API does not return. The app's pool is used, not a
 * second connection, because the embedded database must be reached through a single connection.
 */
export async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  return (await platform.database.pool.query(text, params)).rows as T[];
}
