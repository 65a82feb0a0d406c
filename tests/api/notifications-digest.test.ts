import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from '../helpers/smtp-capture.js';
import { aResident } from '../builders/locations.js';
import { aNotification } from '../builders/notifications.js';
import type { TestUser } from '../builders/users.js';
import { sendDueDigests, unsubscribeToken } from '../../src/modules/notifications/digest.js';
import { notificationDigestJob } from '../../src/modules/notifications/digest.job.js';
import { JOBS } from '../../src/jobs/index.js';
import { OutboxWorker, outboxWorker, startOutboxWorker, stopOutboxWorker } from '../../src/platform/outbox.js';
import { outboxHandlers } from '../../src/outbox-handlers.js';
import { platform } from '../../src/platform/index.js';

/**
 * The email digest (DESIGN.md section 10; docs/modules/notifications.md, "Email digest"): mailed through the real
 * mail path to an SMTP server on loopback, with RFC 8058 one-click unsubscribe by a signed link.
 */
let app: TestApp;
let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  app = await startTestApp({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://hyperlocal.example' });
});
afterAll(async () => {
  await app.stop();
  await smtp.stop();
});

const HOUR = 3600_000;
/** The hourly job's run, then the outbox's (which sends the mails it queued). */
const digests = async (now: Date) => {
  const result = await sendDueDigests(now);
  await outboxWorker!.settle();
  return result;
};
const DAY = 24 * HOUR;

/** The header fields of a mail, folded lines joined. */
function headersOf(mail: CapturedMail): Record<string, string> {
  const head = mail.raw.slice(0, mail.raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, ' ');
  const fields: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    fields[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return fields;
}

async function withDigest(period: 'daily' | 'weekly'): Promise<TestUser> {
  const user = await aResident(app);
  const res = await app.rest('PUT', '/api/notifications/preferences/', { token: user.token, body: { email_digest: period } });
  expect(res.status).toBe(200);
  expect(res.body.email_digest).toBe(period);
  return user;
}

const preferences = async (user: TestUser) => (await app.rest('GET', '/api/notifications/preferences/', { token: user.token })).body;

/** The one-click POST a mail client makes (RFC 8058): to the header's URL, form body List-Unsubscribe=One-Click. */
const oneClick = (url: string) =>
  app
    .http()
    .post(new URL(url).pathname + new URL(url).search)
    .type('form')
    .send('List-Unsubscribe=One-Click');

describe('email digest', () => {
  test('when a person with a daily digest has unread notifications, then one mail lists them with the one-click unsubscribe headers; a second run the same day sends nothing', async () => {
    const ana = await withDigest('daily');
    await aNotification(app, ana.id, { message: 'Bob replied to your post about the tomatoes' });
    await aNotification(app, ana.id, { message: 'Cara liked your post' });
    const read = await aNotification(app, ana.id, { message: 'An old read one' });
    expect((await app.rest('PATCH', `/api/notifications/${read.id}/`, { token: ana.token, body: { is_read: true } })).status).toBe(200);

    const result = await digests(new Date());
    expect(result.queued).toBeGreaterThanOrEqual(1);
    const mails = smtp.mailsTo(ana.email);
    expect(mails).toHaveLength(1);
    const headers = headersOf(mails[0]);
    expect(headers.subject).toBe('Your daily digest: 2 unread notifications');
    expect(mails[0].body).toContain('Bob replied to your post about the tomatoes');
    expect(mails[0].body).toContain('Cara liked your post');
    expect(mails[0].body).not.toContain('An old read one');
    expect(headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const link = /^<(https:\/\/hyperlocal\.example\/api\/notifications\/digest\/unsubscribe\/\?token=[^>]+)>$/.exec(headers['list-unsubscribe']);
    expect(link).not.toBeNull();
    expect(mails[0].body.replace(/=3D/g, '=')).toContain(link![1]); // quoted-printable

    await digests(new Date(Date.now() + 2 * HOUR));
    expect(smtp.mailsTo(ana.email)).toHaveLength(1);
  });

  test('when the next day comes, then the digest lists only what arrived since the last one; with nothing unread, no mail', async () => {
    const ana = await withDigest('daily');
    await aNotification(app, ana.id, { message: 'First thing' });
    await digests(new Date());
    expect(smtp.mailsTo(ana.email)).toHaveLength(1);

    await aNotification(app, ana.id, { message: 'Second thing' });
    await digests(new Date(Date.now() + DAY));
    const mails = smtp.mailsTo(ana.email);
    expect(mails).toHaveLength(2);
    expect(mails[1].body).toContain('Second thing');
    expect(mails[1].body).not.toContain('First thing');

    expect((await app.rest('POST', '/api/notifications/read-all/', { token: ana.token })).status).toBe(200);
    await aNotification(app, ana.id, { message: 'Read at once' }).then((n) => app.rest('PATCH', `/api/notifications/${n.id}/`, { token: ana.token, body: { is_read: true } }));
    await digests(new Date(Date.now() + 2 * DAY));
    expect(smtp.mailsTo(ana.email)).toHaveLength(2);
  });

  test('when a person has nothing unread, or the digest off, then no mail; a weekly digest waits for its week', async () => {
    const quiet = await withDigest('daily');
    const off = await aResident(app);
    await aNotification(app, off.id);
    const weekly = await withDigest('weekly');
    await aNotification(app, weekly.id, { message: 'Weekly news' });
    await digests(new Date());
    expect(smtp.mailsTo(quiet.email)).toEqual([]);
    expect(smtp.mailsTo(off.email)).toEqual([]);
    expect(smtp.mailsTo(weekly.email)).toHaveLength(1);
    expect(headersOf(smtp.mailsTo(weekly.email)[0]).subject).toBe('Your weekly digest: 1 unread notification');

    await aNotification(app, weekly.id, { message: 'Later news' });
    await digests(new Date(Date.now() + 3 * DAY));
    expect(smtp.mailsTo(weekly.email)).toHaveLength(1);
    await digests(new Date(Date.now() + 7 * DAY));
    expect(smtp.mailsTo(weekly.email)).toHaveLength(2);
  });

  test('when the mail client makes the one-click POST to the link, then the digest is off and no more digests come', async () => {
    const ana = await withDigest('daily');
    await aNotification(app, ana.id, { message: 'Something' });
    await digests(new Date());
    const url = /^<(.+)>$/.exec(headersOf(smtp.mailsTo(ana.email)[0])['list-unsubscribe'])![1];
    // A link scanner or a preview fetching the URL (GET) changes nothing.
    const fetched = await app.http().get(new URL(url).pathname + new URL(url).search);
    expect([404, 405]).toContain(fetched.status);
    expect((await preferences(ana)).email_digest).toBe('daily');
    const res = await oneClick(url);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email_digest: 'off' });
    expect((await preferences(ana)).email_digest).toBe('off');

    await aNotification(app, ana.id, { message: 'Something else' });
    await digests(new Date(Date.now() + 2 * DAY));
    expect(smtp.mailsTo(ana.email)).toHaveLength(1);
    // The same link again: still fine (it is off).
    expect((await oneClick(url)).status).toBe(200);
  });

  test('when the token is altered or made for someone else, then it is refused (400) and nothing changes; the same over REST and the socket', async () => {
    const ana = await withDigest('weekly');
    const token = unsubscribeToken(ana.id);
    const tampered = [
      token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'),
      `${(await aResident(app)).id}.${token.split('.')[1]}`,
      'not-a-token',
    ];
    for (const bad of tampered) {
      const rest = await app.rest('POST', '/api/notifications/digest/unsubscribe/', { body: { token: bad, 'List-Unsubscribe': 'One-Click' } });
      expect(rest.status).toBe(400);
      expect(rest.body).toEqual({ token: ['This unsubscribe link is not valid.'] });
      expect(await app.emit('notifications.digest_unsubscribe', { token: bad })).toEqual({ status: 400, body: rest.body });
    }
    expect((await preferences(ana)).email_digest).toBe('weekly');

    expect(await app.emit('notifications.digest_unsubscribe', { token })).toEqual({ status: 200, body: { email_digest: 'off' } });
    expect((await preferences(ana)).email_digest).toBe('off');
    const bob = await withDigest('daily');
    const rest = await app.rest('POST', '/api/notifications/digest/unsubscribe/', { body: { token: unsubscribeToken(bob.id) } });
    expect(rest).toMatchObject({ status: 200, body: { email_digest: 'off' } });
  });

  test('when the process dies right after the job claimed a digest, then the mail is not lost: it is outbox work, which the next worker sends once', async () => {
    const ana = await withDigest('daily');
    await aNotification(app, ana.id, { message: 'Survives a crash' });
    // This node's worker is gone: the job commits, nothing on this node sends afterwards.
    await stopOutboxWorker();
    try {
      const result = await sendDueDigests(new Date());
      expect(result.queued).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(smtp.mailsTo(ana.email)).toEqual([]);
      const { rows } = await platform.db.execute<{ n: number }>(sql`
        SELECT count(*)::int AS n FROM outbox WHERE kind = 'notifications.digest_mail' AND payload ->> 'user_id' = ${ana.id}`);
      expect(rows[0].n).toBe(1);
      // Another run (this node restarted, or another node) claims nothing more.
      await sendDueDigests(new Date(Date.now() + 2 * HOUR));
      const restarted = new OutboxWorker(outboxHandlers, { db: platform.db, log: platform.log, pollMs: 60_000, maxInFlight: 8 });
      await restarted.settle();
      const mails = smtp.mailsTo(ana.email);
      expect(mails).toHaveLength(1);
      expect(mails[0].body).toContain('Survives a crash');
    } finally {
      startOutboxWorker(outboxHandlers, { db: platform.db, log: platform.log, pollMs: 1000, maxInFlight: 32 });
    }
  });

  test('when a person reads their notifications or turns the digest off before the mail goes, then no mail', async () => {
    const reader = await withDigest('daily');
    await aNotification(app, reader.id, { message: 'Read before the mail' });
    const leaver = await withDigest('weekly');
    await aNotification(app, leaver.id, { message: 'Off before the mail' });
    await stopOutboxWorker();
    try {
      await sendDueDigests(new Date());
      expect((await app.rest('POST', '/api/notifications/read-all/', { token: reader.token })).status).toBe(200);
      expect((await app.rest('PUT', '/api/notifications/preferences/', { token: leaver.token, body: { email_digest: 'off' } })).status).toBe(200);
      await new OutboxWorker(outboxHandlers, { db: platform.db, log: platform.log, pollMs: 60_000, maxInFlight: 8 }).settle();
      expect(smtp.mailsTo(reader.email)).toEqual([]);
      expect(smtp.mailsTo(leaver.email)).toEqual([]);
    } finally {
      startOutboxWorker(outboxHandlers, { db: platform.db, log: platform.log, pollMs: 1000, maxInFlight: 32 });
    }
  });

  test('the digest is a scheduled job, hourly', () => {
    expect(JOBS).toContain(notificationDigestJob);
    expect(notificationDigestJob.schedule).toBe('41 * * * *');
  });
});
