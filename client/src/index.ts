/**
 * @hyperlocal/client: the service's operations as one typed `call()` over Socket.IO or REST, the session renewed by
 * itself, and pushed events kept gapless across disconnects. See docs/client.md.
 */
export { createClient } from './client.js';
export { ApiError } from './errors.js';
export { pushSubscriptionInput, subscribeBrowserPush } from './push.js';
export type { BrowserPushSubscriptionJSON, PushRegistrationLike } from './push.js';
export type * from './types.js';
export type * from './generated/api.js';
