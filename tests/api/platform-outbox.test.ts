import path from 'node:path';
import fs from 'node:fs/promises';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';

/**
 * Without SMTP_URL, mail goes to DATA_DIR/outbox as JSON files, so a developer can read the
 * password-reset code without a mail server.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ SMTP_URL: '' });
});
afterAll(async () => {
  await app.stop();
});

const outbox = () => path.join(app.dataDir, 'outbox');
async function mailsTo(email: string): Promise<Array<{ from: string; to: string; subject: string; text: string }>> {
  const files = await fs.readdir(outbox()).catch(() => [] as string[]);
  const mails = await Promise.all(files.filter((f) => f.endsWith('.json')).sort().map(async (f) => JSON.parse(await fs.readFile(path.join(outbox(), f), 'utf8'))));
  return mails.filter((m) => m.to === email);
}
const codeIn = (text: string) => text.match(/\b(\d{6})\b/)?.[1];

describe('the dev outbox', () => {
  test('when a password reset is requested without SMTP_URL, then a JSON mail with a 6-digit code is written to DATA_DIR/outbox', async () => {
    const alice = await aUser(app);
    const res = await app.rest('POST', '/api/auth/password-reset/request/', { body: { email: alice.email } });
    expect(res.status).toBe(200);

    const mails = await mailsTo(alice.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: alice.email, from: expect.stringContaining('@'), subject: expect.any(String) });
    expect(codeIn(mails[0].text)).toMatch(/^\d{6}$/);
  });

  test('when the code from the outbox is used, then it resets the password (it is the real code)', async () => {
    const bob = await aUser(app);
    await app.rest('POST', '/api/auth/password-reset/request/', { body: { email: bob.email } });
    const [mail] = await mailsTo(bob.email);
    const confirm = await app.rest('POST', '/api/auth/password-reset/confirm/', { body: { email: bob.email, otp: codeIn(mail.text), new_password: 'a-brand-new-password' } });
    expect(confirm.status).toBe(200);
    const login = await app.rest('POST', '/api/auth/login/', { body: { username: bob.username, password: 'a-brand-new-password' } });
    expect(login.status).toBe(200);
  });

  test('when a reset is requested over the socket, then the mail lands in the outbox the same way', async () => {
    const carol = await aUser(app);
    const ack = await app.emit('accounts.password_reset_request', { email: carol.email });
    expect(ack.status).toBe(200);
    const mails = await mailsTo(carol.email);
    expect(mails).toHaveLength(1);
    expect(codeIn(mails[0].text)).toMatch(/^\d{6}$/);
  });
});
