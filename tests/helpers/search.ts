import type { TestApp } from './test-app.js';
import { unique } from './test-app.js';
import type { TestUser } from '../builders/users.js';

/**
 * A word nobody else wrote, for a search test's own posts, comments and tags: letters only (digits would split
 * differently under stemming, and a tag made of it is also one word of a query), so what earlier runs left in the
 * database never matches.
 */
export const searchMarker = () => `zq${unique('').replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)])}`;

/** search.query over REST and over the socket; asserts the status and that both answer the same, and answers the body. */
export async function searchBothTransports(app: TestApp, as: TestUser | null, query: Record<string, unknown>, status = 200): Promise<any> {
  const opts = as ? { token: as.token } : {};
  const rest = await app.rest('GET', '/api/search/', { ...opts, query });
  expect(rest.status).toBe(status);
  const socket = await app.emit('search.query', query, opts);
  expect(socket).toEqual({ status: rest.status, body: rest.body });
  return rest.body;
}
