export { io } from 'socket.io-client';
export type { Socket } from 'socket.io-client';
