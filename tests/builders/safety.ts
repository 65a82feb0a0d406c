import type { TestApp } from '../helpers/test-app.js';
import type { TestUser } from './users.js';
import { sql } from '../helpers/sql.js';

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

/** `reporter` reports a thing over REST; throws unless 201 or 200 (again). */
export async function aReport(app: TestApp, reporter: TestUser, target_type: string, target_id: string, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await app.rest('POST', '/api/safety/reports/', { token: reporter.token, body: { target_type, target_id, reason: 'spam', ...fields } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`aReport answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Makes these accounts older than a week (auto-hide counts only established reporters). */
export async function established(...users: TestUser[]): Promise<void> {
  await sql(`UPDATE users SET created_at = now() - interval '8 days' WHERE id = ANY($1::uuid[])`, [users.map((u) => u.id)]);
}
