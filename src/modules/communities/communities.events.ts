/**
 * The communities module's domain events; src/realtime/event-routes.ts decides which rooms hear them.
 * `community.deleted` follows the `post.deleted` of its posts: its room hears `community:deleted` and is emptied.
 */
declare module '../../core/events.js' {
  interface DomainEventMap {
    'community.deleted': { communityId: string };
  }
}

export {};
