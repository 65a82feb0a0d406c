import crypto from 'node:crypto';
import { jest } from '@jest/globals';
import { describeWithRedis, nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aConversation } from '../builders/messages.js';
import { CLUSTER_START_TIMEOUT_MS } from '../helpers/cluster.js';

/**
 * Two nodes sharing one database and one Redis (node B in its own module registry, as if another process):
 * a message sent on one node reaches the participants' devices on the other; typing too.
 */
let nodeA: TestApp;
let nodeB: TestApp;
const cluster = { JWT_SECRET: `cluster-secret-${crypto.randomUUID()}` };

describeWithRedis('messages across nodes', () => {
  beforeAll(async () => {
    nodeA = await startTestApp(cluster);
    await jest.isolateModulesAsync(async () => {
      const isolated = await import('../helpers/test-app.js');
      nodeB = await isolated.startTestApp(cluster);
    });
    // Two nodes start (the second loads the whole app again in its own registry): more than the default 30 s on a
    // loaded machine.
  }, CLUSTER_START_TIMEOUT_MS);
  afterAll(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
  });

  test('when a message is sent on node A, then both participants hear it on node B, an outsider does not; typing crosses nodes as well', async () => {
    const alice = await aResident(nodeA);
    const bob = await aResident(nodeA);
    const eve = await aResident(nodeA);
    const { id } = await aConversation(nodeA, alice, bob);
    const aliceOnA = await nodeA.socket(alice.token);
    const [aliceOnB, bobOnB, eveOnB] = await Promise.all([alice, bob, eve].map((u) => nodeB.socket(u.token)));
    const heard = [aliceOnB, bobOnB].map((s) => nextEvent(s, 'message:created'));
    const eveHears = noEvent(eveOnB, 'message:created', 1000);
    const sent = await aliceOnA.timeout(5000).emitWithAck('messages.send', { conversation_id: id, content: 'across nodes' });
    expect(sent.status).toBe(201);
    for (const payload of await Promise.all(heard)) expect(payload).toEqual(sent.body);
    await eveHears;

    const typing = nextEvent(bobOnB, 'typing');
    expect((await aliceOnA.timeout(5000).emitWithAck('typing', { conversation_id: id })).status).toBe(200);
    expect(await typing).toEqual({ conversation_id: id, user_id: alice.id });
  });
});
