import { startTestApp, type TestApp } from '../helpers/test-app.js';
import type { TestUser } from '../builders/users.js';
import { aResidentOf, aComment, aPost } from '../builders/posts.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aBlock, aMute } from '../builders/safety.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

/** The notification types `user` received from `actor`. */
async function typesFrom(user: TestUser, actor: TestUser): Promise<string[]> {
  const res = await app.rest('GET', '/api/notifications/', { token: user.token, query: { page_size: 100 } });
  return res.body.results.filter((n: { actor: { id: string } | null }) => n.actor?.id === actor.id).map((n: { notification_type: string }) => n.notification_type).sort();
}

describe('notifications between a blocked pair, and from a muted person', () => {
  test('when alice blocked bob, then neither is notified of the other mentioning them; carol still is', async () => {
    const alice = await aResidentOf(app);
    const bob = await aResidentOf(app);
    const carol = await aResidentOf(app);
    await aBlock(app, alice, bob);
    await aPost(app, bob, { content: `hello @${alice.username} and @${carol.username}` });
    await aPost(app, alice, { content: `hello @${bob.username}` });
    expect(await typesFrom(alice, bob)).toEqual([]);
    expect(await typesFrom(bob, alice)).toEqual([]);
    expect(await typesFrom(carol, bob)).toEqual(['mention']);
  });

  test('when a notification was sent before the block, then it stays; the block stops only what follows', async () => {
    const alice = await aResidentOf(app);
    const bob = await aResidentOf(app);
    await aPost(app, bob, { content: `hi @${alice.username}` });
    await aBlock(app, alice, bob);
    await aPost(app, bob, { content: `hi again @${alice.username}` });
    expect(await typesFrom(alice, bob)).toEqual(['mention']);
  });

  test('when alice muted bob, then his likes, comments, replies, mentions and messages notify her no more, and hers still notify him', async () => {
    const alice = await aResidentOf(app);
    const bob = await aResidentOf(app);
    const post = await aPost(app, alice);
    const comment = await aComment(app, alice, post.id);
    await aMute(app, alice, bob);
    expect((await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token })).status).toBeLessThan(300);
    await aComment(app, bob, post.id);
    await aComment(app, bob, post.id, { parent: comment.id });
    await aPost(app, bob, { content: `@${alice.username} look` });
    const conversation = await aConversation(app, bob, alice);
    await aMessage(app, bob, conversation.id, 'hello');
    expect(await typesFrom(alice, bob)).toEqual([]);
    // The message itself still arrives: a mute is silent, not a block.
    expect((await app.rest('GET', `/api/messages/conversations/${conversation.id}/messages/`, { token: alice.token })).body.count).toBe(1);

    await aPost(app, alice, { content: `@${bob.username} hi` });
    expect(await typesFrom(bob, alice)).toEqual(['mention']);
  });
});
