// Moved to src/platform/public-address.ts (shared with push, issue 35); kept so existing imports work.
export { isPublicAddress } from '../../platform/public-address.js';
