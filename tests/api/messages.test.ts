import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import type { TestUser } from '../builders/users.js';
import { aResident } from '../builders/locations.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import { platform } from '../../src/platform/index.js';
import { useMessageClock } from '../../src/modules/messages/message-clock.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  useMessageClock();
  await app.stop();
});

const conversationsPath = '/api/messages/conversations/';
const messagesPath = (id: string) => `/api/messages/conversations/${id}/messages/`;
const conversationCount = async (user: TestUser) => (await app.rest('GET', conversationsPath, { token: user.token })).body.count;

describe('opening conversations', () => {
  test('when a user opens a 1:1 conversation, then 201, and opening it again from either side answers the same conversation with 200 over both transports', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const first = await app.rest('POST', conversationsPath, { token: alice.token, body: { participant_ids: [bob.id] } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      is_group: false,
      participants: [{ id: bob.id, username: bob.username, display_name: expect.any(String), profile_picture: null }],
      last_message: null,
      unread_count: 0,
      last_read_message_id: null,
      last_message_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const rest = await app.rest('POST', conversationsPath, { token: bob.token, body: { participant_ids: [alice.id] } });
    const socket = await app.emit('messages.open_conversation', { participant_ids: [alice.id, bob.id] }, { token: bob.token });
    expect(rest.status).toBe(200);
    expect(rest.body.id).toBe(first.body.id);
    expect(socket).toEqual({ status: rest.status, body: rest.body });
  });

  test('when the same pair opens a conversation many times at once, then there is one conversation', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const results = await Promise.all([alice, bob, alice, bob, alice].map((u) => app.rest('POST', conversationsPath, { token: u.token, body: { participant_ids: [u === alice ? bob.id : alice.id] } })));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(await conversationCount(alice)).toBe(1);
  });

  test('when a user opens a conversation with two others, then a new group conversation lists the two others', async () => {
    const [alice, bob, carol] = [await aResident(app), await aResident(app), await aResident(app)];
    const group = await app.rest('POST', conversationsPath, { token: alice.token, body: { participant_ids: [bob.id, carol.id] } });
    expect(group.status).toBe(201);
    expect(group.body.is_group).toBe(true);
    expect(group.body.participants.map((p: any) => p.id).sort()).toEqual([bob.id, carol.id].sort());
    const again = await app.rest('POST', conversationsPath, { token: alice.token, body: { participant_ids: [bob.id, carol.id] } });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(group.body.id);
  });

  test('when participant ids are missing, empty, malformed, duplicated, unknown, deactivated or only the caller, then field errors and nothing is written', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const gone = await aResident(app);
    await platform.db.execute(sql`UPDATE users SET is_active = false WHERE id = ${gone.id}`);
    const post = (body: unknown) => app.rest('POST', conversationsPath, { token: alice.token, body });
    expect(await post({})).toMatchObject({ status: 400, body: { participant_ids: ['This field is required.'] } });
    expect(await post({ participant_ids: [] })).toMatchObject({ status: 400, body: { participant_ids: ['This list may not be empty.'] } });
    expect(await post({ participant_ids: 'nope' })).toMatchObject({ status: 400, body: { participant_ids: ['Expected a list of user ids.'] } });
    expect(await post({ participant_ids: ['nope'] })).toMatchObject({ status: 400, body: { 'participant_ids.0': ['Invalid UUID format.'] } });
    expect(await post({ participant_ids: [bob.id, bob.id] })).toMatchObject({ status: 400, body: { participant_ids: ['Duplicate participant ids are not allowed.'] } });
    const unknown = crypto.randomUUID();
    expect(await post({ participant_ids: [bob.id, unknown] })).toMatchObject({ status: 400, body: { participant_ids: [`Invalid pk "${unknown}" - object does not exist.`] } });
    expect(await post({ participant_ids: [gone.id] })).toMatchObject({ status: 400, body: { participant_ids: ['You cannot start a conversation with a deactivated user.'] } });
    expect(await post({ participant_ids: [alice.id] })).toMatchObject({ status: 400, body: { participant_ids: ['You cannot start a conversation with yourself alone.'] } });
    const tooMany = Array.from({ length: 50 }, () => crypto.randomUUID());
    expect((await post({ participant_ids: tooMany })).status).toBe(400);
    expect(await conversationCount(alice)).toBe(0);
    expect(await conversationCount(bob)).toBe(0);
  });
});

describe('messages', () => {
  test('when messages are sent, then the list is newest first, paginates with links, and `before` is a cursor that ignores newer messages', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const sent = [];
    for (let i = 1; i <= 5; i++) sent.push(await aMessage(app, i % 2 ? alice : bob, id, `message ${i}`));
    expect(sent[0]).toEqual({
      id: expect.any(String),
      conversation_id: id,
      sender: { id: alice.id, username: alice.username, display_name: expect.any(String), profile_picture: null },
      content: 'message 1',
      created_at: expect.any(String),
    });
    const page1 = await app.rest('GET', messagesPath(id), { token: bob.token, query: { page_size: 2 } });
    expect(page1.body.count).toBe(5);
    expect(page1.body.results.map((m: any) => m.content)).toEqual(['message 5', 'message 4']);
    expect(page1.body.next).toContain('page=2');
    const cursor = await app.rest('GET', messagesPath(id), { token: bob.token, query: { before: sent[2].id, page_size: 1 } });
    await aMessage(app, alice, id, 'message 6');
    const older = await app.rest('GET', messagesPath(id), { token: bob.token, query: { before: sent[2].id, page: 2, page_size: 1 } });
    expect(cursor.body.results.map((m: any) => m.content)).toEqual(['message 2']);
    expect(cursor.body.next).toContain(`before=${sent[2].id}`);
    expect(older.body.results.map((m: any) => m.content)).toEqual(['message 1']);
    const viaSocket = await app.emit('messages.list', { conversation_id: id, page_size: 2 }, { token: bob.token });
    const viaRest = await app.rest('GET', messagesPath(id), { token: bob.token, query: { page_size: 2 } });
    expect(viaSocket).toEqual({ status: viaRest.status, body: viaRest.body });
  });

  test('when the OpenAPI document is read, then a message\'s text is `content` in the send request and the message object, as for posts', async () => {
    const doc = (await app.rest('GET', '/api/docs/openapi.json')).body;
    const { resolve, successSchema } = openApiFit(() => doc);
    const send = doc.paths['/api/messages/conversations/{conversation_id}/messages/'].post;
    const request = resolve(send.requestBody.content['application/json'].schema);
    expect(Object.keys(request.properties)).toEqual(['content']);
    expect(request.required).toEqual(['content']);
    const message = successSchema('/api/messages/conversations/{conversation_id}/messages/', 'post', 201);
    expect(Object.keys(message.properties).sort()).toEqual(['content', 'conversation_id', 'created_at', 'id', 'sender']);
  });

  test('when content is missing, blank, too long or exactly 5,000 characters, then field errors, except the last which is sent', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const send = (body: unknown) => app.rest('POST', messagesPath(id), { token: alice.token, body });
    expect(await send({})).toMatchObject({ status: 400, body: { content: ['This field is required.'] } });
    expect(await send({ content: '   ' })).toMatchObject({ status: 400, body: { content: ['This field may not be blank.'] } });
    expect(await send({ content: 'x'.repeat(5001) })).toMatchObject({ status: 400, body: { content: ['Ensure this field has no more than 5000 characters.'] } });
    expect((await send({ content: 'x'.repeat(5000) })).status).toBe(201);
    const list = await app.rest('GET', messagesPath(id), { token: alice.token });
    expect(list.body.count).toBe(1);
    const badCursor = await app.rest('GET', messagesPath(id), { token: alice.token, query: { before: crypto.randomUUID() } });
    expect(badCursor.status).toBe(400);
    expect(Object.keys(badCursor.body)).toEqual(['before']);
  });

  test('when someone who is not a participant reads, sends or marks read, then 404 and nothing is written', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const mallory = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    await aMessage(app, alice, id);
    const notFound = { status: 404, body: { detail: 'Not found.' } };
    expect(await app.rest('GET', `${conversationsPath}${id}/`, { token: mallory.token })).toMatchObject(notFound);
    expect(await app.rest('GET', messagesPath(id), { token: mallory.token })).toMatchObject(notFound);
    expect(await app.rest('POST', messagesPath(id), { token: mallory.token, body: { content: 'let me in' } })).toMatchObject(notFound);
    expect(await app.rest('POST', `${conversationsPath}${id}/read/`, { token: mallory.token, body: {} })).toMatchObject(notFound);
    expect(await app.emit('messages.send', { conversation_id: id, content: 'socket' }, { token: mallory.token })).toEqual(notFound);
    expect(await app.rest('GET', messagesPath(crypto.randomUUID()), { token: alice.token })).toMatchObject(notFound);
    expect(await app.rest('GET', messagesPath('not-a-uuid'), { token: alice.token })).toMatchObject({ status: 400, body: { conversation_id: ['Invalid UUID format.'] } });
    expect((await app.rest('GET', messagesPath(id), { token: alice.token })).body.count).toBe(1);
  });
});

describe('the conversation list and read state', () => {
  test('when conversations have activity, then the newest activity is first, each with the other participants, the last message and the unread count', async () => {
    const [alice, bob, carol] = [await aResident(app), await aResident(app), await aResident(app)];
    const withBob = await aConversation(app, alice, bob);
    const withCarol = await aConversation(app, alice, carol);
    await aMessage(app, bob, withBob.id, 'one');
    await aMessage(app, bob, withBob.id, 'two');
    await aMessage(app, carol, withCarol.id, 'hi');
    await aMessage(app, alice, withCarol.id, 'hello carol');
    const list = await app.rest('GET', conversationsPath, { token: alice.token });
    expect(list.body.results.map((c: any) => [c.id, c.participants.map((p: any) => p.id), c.last_message?.content, c.unread_count])).toEqual([
      [withCarol.id, [carol.id], 'hello carol', 0],
      [withBob.id, [bob.id], 'two', 2],
    ]);
    await aMessage(app, bob, withBob.id, 'three');
    const reordered = await app.rest('GET', conversationsPath, { token: alice.token });
    expect(reordered.body.results[0]).toMatchObject({ id: withBob.id, unread_count: 3, last_message: { content: 'three', sender: { id: bob.id } } });
    const viaSocket = await app.emit('messages.conversations', {}, { token: alice.token });
    expect(viaSocket).toEqual({ status: 200, body: reordered.body });
  });

  test('when a participant marks read up to a message, then its unread count follows, the mark never moves back, and an unknown message is a field error', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const m1 = await aMessage(app, bob, id, 'one');
    const m2 = await aMessage(app, bob, id, 'two');
    await aMessage(app, bob, id, 'three');
    const readPath = `${conversationsPath}${id}/read/`;
    const upTo2 = await app.rest('POST', readPath, { token: alice.token, body: { message_id: m2.id } });
    expect(upTo2).toMatchObject({ status: 200, body: { conversation_id: id, user_id: alice.id, last_read_message_id: m2.id, read_at: expect.any(String) } });
    expect((await app.rest('GET', `${conversationsPath}${id}/`, { token: alice.token })).body).toMatchObject({ unread_count: 1, last_read_message_id: m2.id });
    const back = await app.rest('POST', readPath, { token: alice.token, body: { message_id: m1.id } });
    expect(back.body.last_read_message_id).toBe(m2.id);
    const all = await app.emit('messages.read', { conversation_id: id }, { token: alice.token });
    expect(all.status).toBe(200);
    expect((await app.rest('GET', `${conversationsPath}${id}/`, { token: alice.token })).body.unread_count).toBe(0);
    const unknown = await app.rest('POST', readPath, { token: alice.token, body: { message_id: crypto.randomUUID() } });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body)).toEqual(['message_id']);
  });
});

describe('new_message notifications', () => {
  const clock = new ManualClock();
  beforeAll(() => useMessageClock(clock));
  afterAll(() => useMessageClock());

  const messageNotifications = async (user: TestUser, conversationId: string) =>
    (await app.rest('GET', '/api/notifications/', { token: user.token, query: { page_size: 100 } })).body.results.filter((n: any) => n.target_id === conversationId);

  test('when messages follow at 0 and 4 minutes, then only the first notifies, with the contract text, target and actor', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    await aMessage(app, alice, id, 'at 0');
    clock.advance(4 * 60_000);
    await aMessage(app, alice, id, 'at 4');
    const got = await messageNotifications(bob, id);
    expect(got).toEqual([
      expect.objectContaining({
        notification_type: 'new_message',
        message: `You have a new message from ${alice.username}`,
        target_type: 'conversation',
        target_id: id,
        actor: expect.objectContaining({ id: alice.id }),
      }),
    ]);
    expect(await messageNotifications(alice, id)).toEqual([]);
  });

  test('when a message follows 6 minutes after the previous one, then it notifies again; quiet is measured from the previous message, not the previous notification', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    await aMessage(app, alice, id, 'at 0');
    clock.advance(6 * 60_000);
    await aMessage(app, bob, id, 'at 6, from bob');
    expect(await messageNotifications(alice, id)).toHaveLength(1);
    expect(await messageNotifications(bob, id)).toHaveLength(1);
    clock.advance(6 * 60_000);
    await aMessage(app, alice, id, 'at 12');
    expect(await messageNotifications(bob, id)).toHaveLength(2);
    // 4 + 4 minutes: more than 5 since the last notification, but never 5 since the previous message.
    clock.advance(4 * 60_000);
    await aMessage(app, alice, id, 'at 16');
    clock.advance(4 * 60_000);
    await aMessage(app, alice, id, 'at 20');
    expect(await messageNotifications(bob, id)).toHaveLength(2);
  });

  test('when exactly 5 minutes passed, then no notification (the contract says more than 5)', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    await aMessage(app, alice, id);
    clock.advance(5 * 60_000);
    await aMessage(app, alice, id);
    expect(await messageNotifications(bob, id)).toHaveLength(1);
  });

  test('when a group message is the first, then every other participant is notified once', async () => {
    const [alice, bob, carol] = [await aResident(app), await aResident(app), await aResident(app)];
    const group = await aConversation(app, alice, bob, carol);
    await aMessage(app, alice, group.id);
    expect(await messageNotifications(bob, group.id)).toHaveLength(1);
    expect(await messageNotifications(carol, group.id)).toHaveLength(1);
    expect(await messageNotifications(alice, group.id)).toHaveLength(0);
  });
});
