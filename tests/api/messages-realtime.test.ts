import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { TYPING_THROTTLE_MS } from '../../src/realtime/typing.js';

/** The realtime clock drives the typing throttle and its participants cache; tokens stay valid (no big jumps). */
const clock = new ManualClock();
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, { realtime: { clock } });
});
afterAll(async () => {
  await app.stop();
});

const typing = (s: Socket, input: unknown) => s.timeout(5000).emitWithAck('typing', input);

describe('message:created', () => {
  test('when two users exchange messages, then each message reaches both devices of both users live, and a third user hears nothing', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const eve = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const [alicePhone, aliceLaptop, bobPhone, bobLaptop, evePhone] = await Promise.all([alice, alice, bob, bob, eve].map((u) => app.socket(u.token)));

    const heard = [alicePhone, aliceLaptop, bobPhone, bobLaptop].map((s) => nextEvent(s, 'message:created'));
    const eveHears = noEvent(evePhone, 'message:created', 800);
    // Sent over Alice's phone socket: the sender's other device (the laptop) hears it too.
    const sent = await alicePhone.timeout(5000).emitWithAck('messages.send', { conversation_id: id, content: 'hi bob' });
    expect(sent.status).toBe(201);
    // What a person wrote is `content`, as in posts and comments (DESIGN.md 8), in the object and the event alike.
    expect(Object.keys(sent.body).sort()).toEqual(['content', 'conversation_id', 'created_at', 'id', 'sender']);
    expect(sent.body.content).toBe('hi bob');
    for (const payload of await Promise.all(heard)) expect(payload).toEqual(sent.body);
    await eveHears;

    const reply = [alicePhone, aliceLaptop, bobPhone, bobLaptop].map((s) => nextEvent(s, 'message:created'));
    const eveStill = noEvent(evePhone, 'message:created', 800);
    const answer = (await bobLaptop.timeout(5000).emitWithAck('messages.send', { conversation_id: id, content: 'hi alice' })).body;
    expect(answer).toMatchObject({ content: 'hi alice', sender: { id: bob.id } });
    for (const payload of await Promise.all(reply)) expect(payload).toEqual(answer);
    await eveStill;
    // The pushed payload is the object the list serves.
    const list = await app.rest('GET', `/api/messages/conversations/${id}/messages/`, { token: alice.token });
    expect(list.body.results[0]).toEqual(answer);
  });

  test('when the first message is sent, then the recipient hears notification:created too, and the sender does not', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const bobs = await app.socket(bob.token);
    const alices = await app.socket(alice.token);
    const notified = nextEvent(bobs, 'notification:created');
    const notSender = noEvent(alices, 'notification:created', 800);
    await aMessage(app, alice, id);
    expect(await notified).toMatchObject({ notification_type: 'new_message', target_type: 'conversation', target_id: id });
    await notSender;
  });
});

describe('conversation:read', () => {
  test('when a participant reads, then the other participants hear how far, the reader and outsiders do not', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const eve = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const message = await aMessage(app, alice, id);
    const [alices, bobs, eves] = await Promise.all([alice, bob, eve].map((u) => app.socket(u.token)));
    const aliceHears = nextEvent(alices, 'conversation:read');
    const bobDoesNot = noEvent(bobs, 'conversation:read', 800);
    const eveDoesNot = noEvent(eves, 'conversation:read', 800);
    const read = await bobs.timeout(5000).emitWithAck('messages.read', { conversation_id: id });
    expect(read).toEqual({ status: 200, body: { conversation_id: id, user_id: bob.id, last_read_message_id: message.id, read_at: expect.any(String) } });
    expect(await aliceHears).toEqual(read.body);
    await Promise.all([bobDoesNot, eveDoesNot]);
    // Nothing moved: nothing is pushed.
    const quiet = noEvent(alices, 'conversation:read', 600);
    await app.rest('POST', `/api/messages/conversations/${id}/read/`, { token: bob.token, body: {} });
    await quiet;
  });
});

describe('typing', () => {
  test("when a participant's socket emits typing, then the other participants' sockets hear it, not the typist's own devices nor outsiders, and it is throttled", async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const eve = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const [alicePhone, aliceLaptop, bobPhone, bobLaptop, eves] = await Promise.all([alice, alice, bob, bob, eve].map((u) => app.socket(u.token)));
    const bobHears = [bobPhone, bobLaptop].map((s) => nextEvent(s, 'typing'));
    const quiet = [aliceLaptop, alicePhone, eves].map((s) => noEvent(s, 'typing', 800));
    expect(await typing(alicePhone, { conversation_id: id })).toEqual({ status: 200, body: { conversation_id: id, relayed: true } });
    for (const payload of await Promise.all(bobHears)) expect(payload).toEqual({ conversation_id: id, user_id: alice.id });
    await Promise.all(quiet);

    // A second keystroke at once is dropped; after the throttle window it is relayed again.
    const dropped = noEvent(bobPhone, 'typing', 600);
    expect(await typing(alicePhone, { conversation_id: id })).toEqual({ status: 200, body: { conversation_id: id, relayed: false } });
    await dropped;
    // The throttle is per socket: Alice's laptop is not held back by her phone.
    expect((await typing(aliceLaptop, { conversation_id: id })).body.relayed).toBe(true);
    clock.advance(TYPING_THROTTLE_MS);
    const again = nextEvent(bobPhone, 'typing');
    expect((await typing(alicePhone, { conversation_id: id })).body.relayed).toBe(true);
    expect(await again).toEqual({ conversation_id: id, user_id: alice.id });
  });

  test('when a non-participant, an anonymous socket or a malformed id types, then 404, 401 or 400 and nobody hears anything', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const eve = await aResident(app);
    const { id } = await aConversation(app, alice, bob);
    const [alices, bobs, eves] = await Promise.all([alice, bob, eve].map((u) => app.socket(u.token)));
    const anonymous = await app.socket();
    const quiet = [alices, bobs].map((s) => noEvent(s, 'typing', 800));
    expect(await typing(eves, { conversation_id: id })).toEqual({ status: 404, body: { detail: 'Not found.' } });
    expect(await typing(eves, { conversation_id: crypto.randomUUID() })).toEqual({ status: 404, body: { detail: 'Not found.' } });
    expect(await typing(anonymous, { conversation_id: id })).toEqual({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
    expect(await typing(alices, { conversation_id: 'nope' })).toEqual({ status: 400, body: { conversation_id: ['Invalid UUID format.'] } });
    expect(await typing(alices, 'not an object')).toEqual({ status: 400, body: { conversation_id: ['This field is required.'] } });
    await Promise.all(quiet);
  });

  test('typing is never stored: no operation, no REST route', async () => {
    const alice = await aResident(app);
    const res = await app.rest('POST', '/api/messages/typing/', { token: alice.token, body: {} });
    expect(res.status).toBe(404);
  });
});
