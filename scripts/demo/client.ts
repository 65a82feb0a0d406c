import { createClient, type HyperlocalClient, type StorageLike } from '@hyperlocal/client';

/**
 * The demo speaks to the service through @hyperlocal/client, as an app would: one client per person, REST only (the
 * demo writes; it listens to nothing), patient with the service's limits: a 429 or 503 is waited out as the service
 * asks (the demo keeps to the limits rather than needing them lifted).
 */
export interface UploadFile {
  name: string;
  type: string;
  data: Buffer;
}

const PATIENCE = { maxRetries: 20, maxWaitSeconds: 120 };

/** A REST-only client of the service; `headers` go on every request (a person's own address, say). */
export function demoClient(baseUrl: string, options: { headers?: Record<string, string>; session?: { access_token: string; refresh_token: string } } = {}): HyperlocalClient {
  return createClient({ baseUrl, realtime: false, retry: PATIENCE, headers: options.headers, storage: options.session ? sessionStorage(options.session) : undefined });
}

/**
 * A session the demo already holds (an account an administrator just created answers with its tokens), handed to
 * the client the way an app restarting hands it its stored session.
 */
function sessionStorage(session: { access_token: string; refresh_token: string }): StorageLike {
  const items = new Map([['hyperlocal.session', JSON.stringify({ access: session.access_token, refresh: session.refresh_token, receivedAt: Date.now() })]]);
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v), removeItem: (k) => void items.delete(k) };
}

/** A file field of a multipart call. */
export const upload = (file: UploadFile): File => new File([file.data], file.name, { type: file.type });

/** Runs `work` over `items`, at most `limit` at a time, in order of start. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
