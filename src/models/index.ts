// Every table of the service; each aggregate has its own file. SQL migrations live in ./migrations.
export * from './locations.js';
export * from './users.js';
export * from './notifications.js';
export * from './location-suggestions.js';
export * from './posts.js';
export * from './comments.js';
export * from './communities.js';
export * from './messages.js';
export * from './stores.js';
export * from './products.js';
export * from './orders.js';
export * from './community-post-fanouts.js';
export * from './deletions.js';
export * from './safety.js';
export * from './moderation.js';
