/** The input of `push.subscribe` for a browser's subscription (a `PushSubscription` or its `toJSON()`). */
export function pushSubscriptionInput(subscription, locale) {
    const json = 'toJSON' in subscription && typeof subscription.toJSON === 'function' ? subscription.toJSON() : subscription;
    const { endpoint, keys } = json;
    if (!endpoint || !keys?.p256dh || !keys?.auth)
        throw new TypeError('A push subscription needs an endpoint and its p256dh and auth keys.');
    return { kind: 'webpush', endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth }, ...(locale ? { locale } : {}) };
}
/**
 * Subscribe this browser to the service's pushes and register it: asks the push manager for a subscription with the
 * service's VAPID key (`push.vapid_public_key`; an existing subscription is reused), then `push.subscribe`. Call it
 * at every start: the same subscription answers the same device. Keep the answer's `id` for logout
 * (`push_subscription_id`). The page must already have the notification permission, or be allowed to ask for it.
 */
export async function subscribeBrowserPush(client, registration, options = {}) {
    const { public_key } = await client.call('push.vapid_public_key', {});
    const subscription = (await registration.pushManager.getSubscription()) ?? (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(public_key) }));
    return client.call('push.subscribe', pushSubscriptionInput(subscription, options.locale));
}
function base64UrlToBytes(text) {
    const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
    const raw = atob(base64);
    const bytes = new Uint8Array(new ArrayBuffer(raw.length));
    for (let i = 0; i < raw.length; i++)
        bytes[i] = raw.charCodeAt(i);
    return bytes;
}
