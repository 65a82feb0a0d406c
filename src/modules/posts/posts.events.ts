import type { PollData, PostBody } from './posts.serializer.js';
import '../deletions/deletions.events.js';

/**
 * The posts module's domain events (DESIGN.md section 5); `post.deleted`, which other modules raise too, is
 * declared in deletions/deletions.events.ts. Payloads carry the bodies as an anonymous viewer
 * sees them, built with the server's base URL; src/realtime/event-routes.ts decides which rooms hear them.
 */
export interface PostStats {
  post_id: string;
  likes_count: number;
  comments_count: number;
  views_count: number;
  /** An event's answers (event posts only): an RSVP changes them as a like changes likes_count. */
  going_count?: number;
  interested_count?: number;
}

declare module '../../core/events.js' {
  interface DomainEventMap {
    'post.created': { post: PostBody; locationId: string | null; communityId: string | null };
    /**
     * Its author edited it (DESIGN.md section 13): the whole post as an anonymous viewer sees it. A post hidden by
     * moderation (`hidden`) is told only to its own room, which holds its author's and staff's sockets since the hiding.
     */
    'post.updated': { post: PostBody; locationId: string | null; communityId: string | null; hidden: boolean };
    /** A counter of the post changed; the stats coalescer turns bursts of these into one `post.stats` a second. */
    'post.counters_changed': { postId: string };
    // `authorId`: the post's author. Pushes about a post never reach the sockets that hide its author (a block either
    // way, a mute), as its post:created does not. A comment's events are the comments module's (comments.events.ts).
    'post.stats': { stats: PostStats; authorId: string; locationId: string | null; communityId: string | null };
    'poll.updated': { postId: string; authorId: string; pollData: PollData };
    'poll.expired': { postId: string; authorId: string; locationId: string | null; communityId: string | null; pollData: PollData };
  }
}

export {};
