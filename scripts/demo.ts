/**
 * `npm run demo`: fills the RUNNING service (embedded or server database alike) with a small, believable city,
 * through its public API only. Idempotent: a second run finds what the first made and adds nothing.
 *
 *   npm run demo [-- --url=http://localhost:8000] [--users=100] [--seed=13]
 *
 * People sign up over the public register, each from an address of their own (the service believes X-Forwarded-For
 * from loopback by default). Where it does not, give an administrator: start the service with ADMIN_EMAIL and
 * ADMIN_PASSWORD and run the demo with the same variables (or --admin-email/--admin-password).
 */
import { DemoError, runDemo } from './demo/run.js';
import { demoPush } from './demo/push.js';

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.slice(2).find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const unknown = process.argv.slice(2).filter((a) => !/^--(url|users|seed|admin-email|admin-password)=/.test(a));
if (unknown.length) {
  console.error(`Unknown argument ${unknown[0]}. Usage: npm run demo -- [--url=http://localhost:8000] [--users=100] [--seed=13] [--admin-email=… --admin-password=…]`);
  process.exit(2);
}

const url = arg('url') ?? process.env.DEMO_URL ?? `http://localhost:${process.env.PORT ?? 8000}`;
try {
  const result = await runDemo({
    url,
    users: Number(arg('users') ?? process.env.DEMO_USERS ?? 100),
    seed: Number(arg('seed') ?? 13),
    adminEmail: arg('admin-email') ?? process.env.ADMIN_EMAIL,
    adminPassword: arg('admin-password') ?? process.env.ADMIN_PASSWORD,
  });
  const line = (kind: string) => `${kind} ${result.created[kind]} new, ${result.existing[kind]} already there`;
  console.log(`\nThe demo neighbourhood is ready (${result.seconds} s).`);
  console.log(['users', 'stores', 'products', 'communities', 'memberships', 'posts', 'comments', 'likes', 'votes', 'conversations', 'messages', 'mutes', 'blocks', 'reports'].map((k) => `  ${line(k)}`).join('\n'));
  console.log(`\nLog in as:      ${result.login.username} (or ${result.login.email}), password ${result.login.password}`);
  console.log(`Display page:   ${result.displayUrl}`);
  // A Web Push device for demo, and what arrives when a neighbour replies (docs/push.md).
  const seed = Number(arg('seed') ?? 13);
  const users = Number(arg('users') ?? process.env.DEMO_USERS ?? 100);
  console.log(`\n${(await demoPush(url, { seed, users }).catch((err: Error) => ({ message: `Push: the step failed (${err.message}).` }))).message}`);
} catch (err) {
  console.error(`\n${err instanceof DemoError ? err.message : (err as Error).stack ?? String(err)}`);
  process.exit(1);
}
