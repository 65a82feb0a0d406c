import type { TestApp } from '../helpers/test-app.js';
import type { TestUser } from './users.js';

/** A conversation `user` opens with `others` over REST (the existing 1:1 one when there is one). */
export async function aConversation(app: TestApp, user: TestUser, ...others: TestUser[]): Promise<any> {
  const res = await app.rest('POST', '/api/messages/conversations/', { token: user.token, body: { participant_ids: others.map((o) => o.id) } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`aConversation answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A message `user` sends over REST; throws unless 201. */
export async function aMessage(app: TestApp, user: TestUser, conversationId: string, content = 'Hello there'): Promise<any> {
  const res = await app.rest('POST', `/api/messages/conversations/${conversationId}/messages/`, { token: user.token, body: { content } });
  if (res.status !== 201) throw new Error(`aMessage answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
