import { domainEvents } from '../../core/events.js';
import { platform } from '../../platform/index.js';
import { drainCommunityPostFanout } from './community-fanout.service.js';

/**
 * This node drains the fan-outs its own posts queued, as soon as each post commits, at most
 * CONCURRENT_DRAINS at a time (a burst of posts queues here instead of taking the whole database pool).
 * A fan-out that fails or is cut short (shutdown, crash) keeps its row and is resumed by the job
 * (community-fanout.job.ts) once it has not moved for FANOUT_STALLED_AFTER_SECONDS, on whichever node runs it.
 */
const CONCURRENT_DRAINS = 2;

const waiting: string[] = [];
let running = 0;
let stopping = false;
const idle: Array<() => void> = [];

function enqueue(postId: string): void {
  if (stopping) return; // the job resumes it after the restart
  waiting.push(postId);
  pump();
}

function pump(): void {
  while (running < CONCURRENT_DRAINS && waiting.length) {
    const postId = waiting.shift()!;
    running++;
    drainCommunityPostFanout(postId, () => stopping)
      .catch((err) => platform.log.error({ err, postId }, 'community post fan-out failed; the job will resume it'))
      .finally(() => {
        running--;
        if (running === 0) for (const resolve of idle.splice(0)) resolve();
        pump();
      });
  }
}

let started = false;
/** Listen for queued fan-outs on this node's bus (idempotent; the posts operations start it on import). */
export function startCommunityFanoutWorker(): void {
  if (started) return;
  started = true;
  domainEvents.subscribe((event) => {
    if (event.name === 'community_post.fanout_queued') enqueue(event.payload.postId);
  });
}

/**
 * Shutdown: take nothing new, let each running drain finish its current batch, and forget what is waiting (its
 * rows stay for the job). The worker takes work again afterwards (a server started anew in the same process).
 */
export async function stopCommunityFanoutWorker(): Promise<void> {
  stopping = true;
  waiting.length = 0;
  if (running > 0) await new Promise<void>((resolve) => idle.push(resolve));
  stopping = false;
}
