import type { ClientOptions, HyperlocalClient } from './types.js';
export declare function createClient(options: ClientOptions): HyperlocalClient;
