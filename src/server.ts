import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server as SocketServer } from 'socket.io';
import type { Config } from './platform/config.js';
import { platform, startPlatform, stopPlatform } from './platform/index.js';
import { createHttpApp } from './http/app.js';
import { createRealtimeServer } from './realtime/server.js';
import { operations, loadChannels } from './registry.js';
import type { OperationRunner } from './core/run-operation.js';
import type { Operation } from './core/operation.js';
import { startJobs, type Jobs } from './jobs/index.js';
import { bootstrapAdmin } from './modules/accounts/admin-bootstrap.js';

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
}

export async function startServer(config: Config, opts: ServerOptions = {}): Promise<RunningServer> {
  const served = opts.operations ?? operations;
  await startPlatform(config);
  await loadChannels();
  await bootstrapAdmin();
  const runner: OperationRunner = {
    rateLimits: platform.rateLimits,
    onUnexpectedError: (err, op, ctx) => platform.log.error({ err, operation: op.name, requestId: ctx.requestId, transport: ctx.transport }, 'operation failed'),
  };
  const app = createHttpApp(served, runner);
  const httpServer = http.createServer(app);
  const io = createRealtimeServer(httpServer, served, runner);
  const jobs: Jobs | null = opts.jobs === false ? null : startJobs();

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.PORT, config.HOST, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      jobs?.stop();
      // Stop accepting; in-flight requests finish (bounded by the grace period); sockets are closed.
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      io.disconnectSockets(true);
      await io.close().catch(() => undefined);
      httpServer.closeIdleConnections();
      const grace = setTimeout(() => httpServer.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(grace);
      await stopPlatform();
    })());

  return { url: `http://127.0.0.1:${port}`, port, httpServer, io, stop };
}
