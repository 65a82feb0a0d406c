import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server as SocketServer } from 'socket.io';
import type { Config } from './platform/config.js';
import { platform, startPlatform, stopPlatform } from './platform/index.js';
import { createHttpApp } from './http/app.js';
import { drainableServer, type DrainableServer } from './http/drain.js';
import { createRealtimeServer, type RealtimeOptions } from './realtime/server.js';
import { broadcastWriteCounts } from './realtime/direct-broadcast.js';
import { operations } from './registry.js';
import type { OperationRunner } from './core/run-operation.js';
import type { Operation } from './core/operation.js';
import { startJobs, type Jobs } from './jobs/index.js';
import type { EmbeddedDatabase } from './platform/embedded-db.js';
import { bootstrapAdmin } from './modules/accounts/admin-bootstrap.js';
import { stopCommunityFanoutWorker } from './modules/posts/community-fanout.worker.js';
import { startOutboxWorker, stopOutboxWorker, type OutboxHandler } from './platform/outbox.js';
import { outboxHandlers } from './outbox-handlers.js';
import { closePushSenders } from './modules/push/push-senders.js';
import { closeWebhookConnections } from './modules/webhooks/sender.js';
import { listeningBaseUrl, setServerBaseUrl } from './core/server-base-url.js';
import { configureTrustedProxies } from './core/client-address.js';
import { configureAudioWork } from './core/media/audio-work.js';

/**
 * The whole service in one process: platform connections, HTTP + Socket.IO on one port, jobs.
 * main.ts runs it from the command line; tests start it in-process on a free port.
 */
export interface RunningServer {
  url: string;
  port: number;
  httpServer: http.Server;
  io: SocketServer;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Run the scheduled jobs (default true; tests turn them off). */
  jobs?: boolean;
  /** The operations to serve (default: every operation of the registry; tests may add throwaway ones). */
  operations?: readonly Operation[];
  /** Socket.IO options (tests pass a manual clock). */
  realtime?: RealtimeOptions;
  /** The embedded database, when the caller started it early (main.ts); otherwise started here when needed. */
  embedded?: Promise<EmbeddedDatabase>;
  /** The outbox's handlers (default: src/outbox-handlers.ts; tests may add throwaway ones). */
  outboxHandlers?: readonly OutboxHandler[];
}

export async function startServer(config: Config, opts: ServerOptions = {}): Promise<RunningServer> {
  const served = opts.operations ?? operations;
  configureTrustedProxies(config.TRUSTED_PROXIES);
  configureAudioWork({ timeoutMs: config.AUDIO_WORK_TIMEOUT_MS });
  await startPlatform(config, undefined, { embedded: opts.embedded });
  let web: DrainableServer;
  let io: SocketServer | null = null;
  try {
    await bootstrapAdmin();
    const runner: OperationRunner = {
      rateLimits: platform.rateLimits,
      defaultLimits: { readsPerMinute: config.RATE_LIMIT_DEFAULT_READS_PER_MINUTE, writesPerMinute: config.RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE },
      onUnexpectedError: (err, op, ctx) => platform.log.error({ err, operation: op.name, requestId: ctx.requestId, transport: ctx.transport }, 'operation failed'),
      onAnswered: (op, ctx, status, seconds) => platform.metrics.observeOperation(op.name, ctx.transport, status, seconds),
    };
    web = drainableServer(createHttpApp(served, runner));
    io = createRealtimeServer(web.server, served, runner, opts.realtime);
    platform.metrics.watchRealtime(io, broadcastWriteCounts(io));
    await new Promise<void>((resolve, reject) => {
      web.server.once('error', reject);
      web.server.listen(config.PORT, config.HOST, () => resolve());
    });
  } catch (err) {
    // A start that fails half-way (port taken, database refusing) must not leave connections open.
    await io?.close().catch(() => undefined);
    await stopPlatform();
    throw err;
  }
  const jobs: Jobs | null = opts.jobs === false ? null : startJobs();
  // Outbox work is not a scheduled job: every node drains it, tests included.
  startOutboxWorker(opts.outboxHandlers ?? outboxHandlers, {
    db: platform.db,
    log: platform.log,
    metrics: platform.metrics,
    pollMs: config.OUTBOX_POLL_MS,
    maxInFlight: config.OUTBOX_MAX_IN_FLIGHT,
    namedStatementsPool: platform.database.namedStatements ? platform.database.pool : undefined,
  });
  const httpServer = web.server;
  const port = (httpServer.address() as AddressInfo).port;
  setServerBaseUrl(config.PUBLIC_BASE_URL ?? listeningBaseUrl(config.HOST, port));
  const realtime = io;

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      jobs?.stop();
      // Stop accepting; in-flight requests finish (bounded by the grace period); sockets are closed.
      // Only then do the database and Redis connections close, since those requests still use them.
      // This node's sockets only: with the Redis adapter a plain disconnectSockets closes every node's sockets.
      realtime.local.disconnectSockets(true);
      await Promise.all([web.drain(config.SHUTDOWN_GRACE_MS), realtime.close().catch(() => undefined)]);
      // A fan-out stops after its current batch; the rest of it stays queued in the database for the job.
      await stopCommunityFanoutWorker();
      // Outbox work still running keeps its lease and is run again by whichever node claims it when the lease ends.
      await stopOutboxWorker();
      // Keep-alive connections to push services (and HTTP/2 sessions) and to webhook receivers close with it.
      await closePushSenders();
      closeWebhookConnections();
      await stopPlatform();
    })());

  return { url: `http://127.0.0.1:${port}`, port, httpServer, io: realtime, stop };
}
