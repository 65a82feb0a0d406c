/**
 * The domain event of a post going away, whoever takes it away (DESIGN.md sections 5 and 9): its author or staff
 * deleting it (posts), moderation hiding it (posts/post-hiding.ts), its community being deleted (communities), its
 * author's account being deleted (posts.leaving.ts). It is declared here, in the module that keeps the tombstones
 * realtime.sync lists in `deleted`, below every module that raises it, so that none of them imports another for it;
 * src/realtime/event-routes.ts decides which rooms hear it.
 */
declare module '../../core/events.js' {
  interface DomainEventMap {
    /**
     * The post went away: deleted, or hidden by moderation. A hidden post stays for its author (`keptFor`), whose
     * devices are left out of the push.
     */
    'post.deleted': { postId: string; locationId: string | null; communityId: string | null; keptFor?: string };
  }
}

export {};
