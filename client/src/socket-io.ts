// The client's one import of socket.io-client, kept in a module of its own: the service's browser build
// (src/http/client-assets.ts) serves this file pointed at socket.io's browser bundle instead.
export { io } from 'socket.io-client';
export type { Socket } from 'socket.io-client';
