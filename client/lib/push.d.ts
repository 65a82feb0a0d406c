import type { AnswerOf, HyperlocalClient, InputOf } from './types.js';
/**
 * Web Push from a browser (docs/push.md): a browser's PushSubscription turned into the `push.subscribe` call.
 * Only types from the DOM library are named structurally here, so the client builds without it being present.
 */
/** What `PushSubscription.toJSON()` gives. */
export interface BrowserPushSubscriptionJSON {
    endpoint?: string;
    expirationTime?: number | null;
    keys?: Record<string, string>;
}
/** The input of `push.subscribe` for a browser's subscription (a `PushSubscription` or its `toJSON()`). */
export declare function pushSubscriptionInput(subscription: BrowserPushSubscriptionJSON | {
    toJSON(): BrowserPushSubscriptionJSON;
}, locale?: string): InputOf<'push.subscribe'>;
/** The parts of a ServiceWorkerRegistration this needs. */
export interface PushRegistrationLike {
    pushManager: {
        getSubscription(): Promise<{
            toJSON(): BrowserPushSubscriptionJSON;
        } | null>;
        subscribe(options: {
            userVisibleOnly: boolean;
            applicationServerKey: string | ArrayBuffer | ArrayBufferView;
        }): Promise<{
            toJSON(): BrowserPushSubscriptionJSON;
        }>;
    };
}
/**
 * Subscribe this browser to the service's pushes and register it: asks the push manager for a subscription with the
 * service's VAPID key (`push.vapid_public_key`; an existing subscription is reused), then `push.subscribe`. Call it
 * at every start: the same subscription answers the same device. Keep the answer's `id` for logout
 * (`push_subscription_id`). The page must already have the notification permission, or be allowed to ask for it.
 */
export declare function subscribeBrowserPush(client: Pick<HyperlocalClient, 'call'>, registration: PushRegistrationLike, options?: {
    locale?: string;
}): Promise<AnswerOf<'push.subscribe'>>;
