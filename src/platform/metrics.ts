import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type pg from 'pg';
import type { Server as SocketServer } from 'socket.io';

import type { RequestContext } from '../core/context.js';

type Transport = RequestContext['transport'];

/**
 * What operators watch (Prometheus text format at GET /metrics, see http/metrics-route.ts).
 * One registry per running server rather than prom-client's global one: tests start several servers in one
 * process, and each must count only its own requests. Gauges that describe a live object (sockets, rooms, the
 * database pool) are read when scraped, so nothing is counted twice and nothing is updated on the hot path.
 */
export class Metrics {
  readonly registry = new Registry();

  private readonly operationSeconds = new Histogram({
    name: 'hyperlocal_operation_duration_seconds',
    help: 'Time from admission to answer of each operation, by transport and status class',
    labelNames: ['operation', 'transport', 'status_class'] as const,
    // Operations are expected in milliseconds; the long tail up to the statement timeout still shows.
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers: [this.registry],
  });

  private readonly rateLimitRefusals = new Counter({
    name: 'hyperlocal_rate_limit_refusals_total',
    help: 'Operation calls answered 429 because a rate limit was spent',
    labelNames: ['operation', 'transport'] as const,
    registers: [this.registry],
  });

  private readonly eventsPushed = new Counter({
    name: 'hyperlocal_realtime_events_pushed_total',
    help: 'Domain events routed to sockets by this node, by kind',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  private readonly jobRuns = new Counter({
    name: 'hyperlocal_job_runs_total',
    help: 'Scheduled job runs on this node, by outcome (ok, failed, skipped: another node held the lock)',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly jobSeconds = new Histogram({
    name: 'hyperlocal_job_duration_seconds',
    help: 'Duration of the scheduled job runs this node performed',
    labelNames: ['job'] as const,
    buckets: [0.01, 0.1, 1, 10, 60, 300, 1800],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'hyperlocal_' });
  }

  observeOperation(operation: string, transport: Transport, status: number, seconds: number): void {
    this.operationSeconds.observe({ operation, transport, status_class: `${Math.floor(status / 100)}xx` }, seconds);
    if (status === 429) this.rateLimitRefusals.inc({ operation, transport });
  }

  countEventPushed(event: string): void {
    this.eventsPushed.inc({ event });
  }

  countJobRun(job: string, outcome: 'ok' | 'failed' | 'skipped', seconds?: number): void {
    this.jobRuns.inc({ job, outcome });
    if (seconds !== undefined) this.jobSeconds.observe({ job }, seconds);
  }

  /** The database pool's connections, read at scrape time. */
  watchPool(pool: pg.Pool): void {
    new Gauge({
      name: 'hyperlocal_db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting callers)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  /**
   * Sockets and rooms of this node, read at scrape time (other nodes report their own), and how its broadcasts
   * were written to each socket (realtime/direct-broadcast.ts), counted there in plain numbers: a label lookup
   * per socket write would cost more than the write it counts.
   */
  watchRealtime(io: SocketServer, broadcastWrites?: { direct: number; library: number }): void {
    if (broadcastWrites) {
      new Counter({
        name: 'hyperlocal_realtime_broadcast_writes_total',
        help: 'Broadcast frames written to a socket on this node: direct (straight to its connection) or library (through Engine.IO: polling, or a write in flight)',
        labelNames: ['path'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc({ path: 'direct' }, broadcastWrites.direct);
          this.inc({ path: 'library' }, broadcastWrites.library);
        },
      });
    }
    new Gauge({
      name: 'hyperlocal_sockets_connected',
      help: 'Socket.IO connections open on this node',
      registers: [this.registry],
      collect() {
        this.set(io.of('/').sockets.size);
      },
    });
    new Gauge({
      name: 'hyperlocal_socket_rooms',
      help: 'Rooms with at least one socket on this node (each socket is also in a room of its own id)',
      registers: [this.registry],
      collect() {
        this.set(io.of('/').adapter.rooms.size);
      },
    });
  }
}
