import type { CommentBody } from './comments.serializer.js';

/**
 * The comments module's domain events (DESIGN.md section 5), beside the posts module's (posts/posts.events.ts) on
 * which they stand: a comment's pushes go to its post's room. Payloads carry the comment as an anonymous viewer
 * sees it; src/realtime/event-routes.ts decides which rooms hear them.
 */
declare module '../../core/events.js' {
  interface DomainEventMap {
    // `authorId`: the post's author. Pushes about a post never reach the sockets that hide its author (a block either
    // way, a mute); a comment's also skip those that hide the comment's author.
    'comment.created': { postId: string; authorId: string; comment: CommentBody };
    /** Its author edited it; heard where `comment.created` was (never for a comment hidden by moderation). */
    'comment.updated': { postId: string; authorId: string; comment: CommentBody };
  }
}

export {};
