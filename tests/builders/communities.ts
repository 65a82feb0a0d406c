import type { TestApp } from '../helpers/test-app.js';
import { unique } from '../helpers/test-app.js';
import type { TestUser } from './users.js';

/** The id of a seeded category (the first one, or the one named `name`). */
export async function aCategoryId(app: TestApp, user: TestUser, name?: string): Promise<string> {
  const res = await app.rest('GET', '/api/communities/categories/', { token: user.token });
  if (res.status !== 200) throw new Error(`categories answered ${res.status}`);
  const category = name ? res.body.find((c: { name: string }) => c.name === name) : res.body[0];
  if (!category) throw new Error(`no category ${name}`);
  return category.id;
}

/** A community owned by `owner`, created over REST: `const club = await aCommunity(app, alice)`. */
export async function aCommunity(app: TestApp, owner: TestUser, overrides: Record<string, unknown> = {}): Promise<any> {
  const body = { name: unique('Club '), description: 'A test community', category: await aCategoryId(app, owner), ...overrides };
  const res = await app.rest('POST', '/api/communities/communities/', { token: owner.token, body });
  if (res.status !== 201) throw new Error(`aCommunity: create answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** `user` joins the community over REST; throws unless 200. */
export async function joinCommunity(app: TestApp, user: TestUser, communityId: string): Promise<void> {
  const res = await app.rest('POST', `/api/communities/communities/${communityId}/join/`, { token: user.token });
  if (res.status !== 200) throw new Error(`join answered ${res.status} ${JSON.stringify(res.body)}`);
}
