import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';

/**
 * docs/client.md's phone-app example (client/examples/phone-app.mjs) runs as written, in plain Node, against the
 * service: it signs in, goes to the background, and a post made meanwhile reaches its handler on the way back,
 * before `live`.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app?.stop();
});

test('when the phone-app example runs, then it signs in, misses nothing while in the background, posts and signs out', async () => {
  const place = await aNeighbourhood(app);
  const user = await aResidentOf(app, place);
  const child = spawn(process.execPath, ['client/examples/phone-app.mjs'], {
    env: {
      PATH: process.env.PATH,
      HYPERLOCAL_URL: app.url,
      HYPERLOCAL_USERNAME: user.username,
      HYPERLOCAL_PASSWORD: user.password,
      HYPERLOCAL_BACKGROUND_MS: '2000',
      HYPERLOCAL_SESSION_FILE: path.join(os.tmpdir(), `hyperlocal-example-${process.pid}-${Date.now()}.json`),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let missed: Promise<{ id: string }> | null = null;
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (!missed && out.includes('in the background')) missed = aPost(app, place.founder, { content: 'Posted while the phone slept' });
  });
  child.stderr.on('data', (chunk) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect({ code, err }).toEqual({ code: 0, err: '' });
  expect(missed).not.toBeNull();
  const { id } = await missed!;
  const lines = out.split('\n');
  const background = lines.findIndex((l) => l.includes('in the background'));
  const replayed = lines.findIndex((l, i) => i > background && l.includes(`post:created ${id}`));
  const liveAgain = lines.findIndex((l, i) => i > background && l.endsWith('status live'));
  expect(out).toContain(`signed in as ${user.username}`);
  expect(replayed).toBeGreaterThan(background);
  expect(replayed).toBeLessThan(liveAgain);
  expect(lines.filter((l) => l.includes(`post:created ${id}`))).toHaveLength(1);
  expect(out).toMatch(/posted [0-9a-f-]{36}/);
  expect(out).toContain('auth:ended logout');
}, 60_000);
