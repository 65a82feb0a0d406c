// A phone app's life with @hyperlocal/client, as a Node script: sign in, follow the neighbourhood, go to the
// background, come back (what was missed arrives first, then `live`), post, sign out. Against a running service:
//
//   HYPERLOCAL_URL=http://localhost:8000 HYPERLOCAL_USERNAME=demo HYPERLOCAL_PASSWORD=… node client/examples/phone-app.mjs
//
// (`npm run demo` prints a username and password that work.) HYPERLOCAL_BACKGROUND_MS: how long the app stays in the
// background (default 5000): post something from another device meanwhile and watch it arrive on the way back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@hyperlocal/client';

const { HYPERLOCAL_URL = 'http://localhost:8000', HYPERLOCAL_USERNAME, HYPERLOCAL_PASSWORD } = process.env;
const backgroundMs = Number(process.env.HYPERLOCAL_BACKGROUND_MS ?? 5000);
const log = (...args) => console.log(new Date().toISOString().slice(11, 23), ...args);

// The session outlives the app: any getItem/setItem/removeItem store will do (localStorage, AsyncStorage, a file).
const sessionFile = process.env.HYPERLOCAL_SESSION_FILE ?? path.join(os.tmpdir(), 'hyperlocal-example-session.json');
const files = {
  getItem: () => (fs.existsSync(sessionFile) ? fs.readFileSync(sessionFile, 'utf8') : null),
  setItem: (_key, value) => fs.writeFileSync(sessionFile, value, { mode: 0o600 }),
  removeItem: () => fs.rmSync(sessionFile, { force: true }),
};

const client = createClient({ baseUrl: HYPERLOCAL_URL, storage: files });

// One set of handlers for everything: pushed live, or replayed after a gap (each item once, in order).
client.on('status', (status) => log('status', status));
client.on('post:created', (post) => log('post:created', post.id, JSON.stringify(post.content.slice(0, 40))));
client.on('post:deleted', ({ id }) => log('post:deleted', id));
client.on('message:created', (message) => log('message:created', message.id, 'from', message.sender?.username));
client.on('notification:created', (n) => log('notification:created', n.id, n.message));
client.on('full_refresh', ({ reason }) => log('full_refresh', reason, '(reload what is on screen)'));
client.on('auth:ended', ({ reason }) => log('auth:ended', reason, '(show the sign-in screen)'));

/** Resolves once the client reports `status`. */
const until = (status) =>
  new Promise((resolve) => {
    const check = (now) => {
      if (now !== status) return;
      client.off('status', check);
      resolve();
    };
    if (client.status === status) resolve();
    else client.on('status', check);
  });

// 1. Sign in (or carry on with the stored session).
await client.ready;
if (!client.signedIn) {
  if (!HYPERLOCAL_USERNAME || !HYPERLOCAL_PASSWORD) throw new Error('Set HYPERLOCAL_USERNAME and HYPERLOCAL_PASSWORD (npm run demo prints a pair).');
  await client.login({ username: HYPERLOCAL_USERNAME, password: HYPERLOCAL_PASSWORD });
}
const me = await client.call('users.profile');
log('signed in as', me.username);

// 2. Follow the neighbourhood: the room is kept, and joined again after every reconnection.
if (me.location) await client.subscribe({ channel: 'location', id: me.location.id });
await until('live');

// 3. The app goes to the background: no socket, nothing pushed.
client.disconnect();
log(`in the background for ${backgroundMs} ms`);
await new Promise((resolve) => setTimeout(resolve, backgroundMs));

// 4. Back to the foreground: rooms are joined again, what was missed arrives, then `live`.
client.connect();
await until('live');

// 5. Calls go over the socket when it is connected, else REST; the answer is the same.
if (me.location) {
  const post = await client.call('posts.create', { post_type: 'text', content: 'Hello from the phone-app example' });
  log('posted', post.id);
}

// 6. Sign out (tokens and the stored session go), and stop.
await client.logout();
client.close();
