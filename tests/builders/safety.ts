import type { TestApp } from '../helpers/test-app.js';
import type { TestUser } from './users.js';

/** `actor` blocks `target` over REST; throws unless 201. */
export async function aBlock(app: TestApp, actor: TestUser, target: TestUser): Promise<void> {
  const res = await app.rest('POST', '/api/safety/blocks/', { token: actor.token, body: { user_id: target.id } });
  if (res.status !== 201) throw new Error(`aBlock answered ${res.status} ${JSON.stringify(res.body)}`);
}

/** `actor` mutes `target` over REST; throws unless 201. */
export async function aMute(app: TestApp, actor: TestUser, target: TestUser): Promise<void> {
  const res = await app.rest('POST', '/api/safety/mutes/', { token: actor.token, body: { user_id: target.id } });
  if (res.status !== 201) throw new Error(`aMute answered ${res.status} ${JSON.stringify(res.body)}`);
}
