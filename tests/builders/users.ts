import type { TestApp } from '../helpers/test-app.js';
import { unique } from '../helpers/test-app.js';

/** A registered user with fresh tokens: `const alice = await aUser(app)`. */
export interface TestUser {
  id: string;
  username: string;
  email: string;
  password: string;
  token: string;
  refresh: string;
  body: any;
}

export async function aUser(app: TestApp, overrides: Record<string, unknown> = {}): Promise<TestUser> {
  const username = (overrides.username as string) ?? unique('user');
  const input = { email: `${username}@example.test`, username, display_name: `User ${username}`, password: 'correct-horse-battery', ...overrides };
  const res = await app.rest('POST', '/api/auth/register/', { body: input });
  if (res.status !== 201) throw new Error(`aUser: register answered ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, username, email: input.email as string, password: input.password as string, token: res.body.access_token, refresh: res.body.refresh_token, body: res.body.user };
}
