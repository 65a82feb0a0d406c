import type { EventName, HyperlocalClient, Status } from '@hyperlocal/client';

/** What a client's handlers were given, in order, with the client's status at that moment (`status` events too). */
export interface Heard {
  event: string;
  /** The payload's id (a status event: the status). */
  id: string;
  status: Status;
  payload: unknown;
}

export function recordEvents(client: HyperlocalClient, events: readonly EventName[]): Heard[] {
  const heard: Heard[] = [];
  for (const event of events) {
    client.on(event, (payload: unknown) => heard.push({ event, id: String((payload as { id?: unknown }).id), status: client.status, payload }));
  }
  client.on('status', (status) => heard.push({ event: 'status', id: status, status, payload: status }));
  return heard;
}

/** Poll a condition until it holds or `ms` pass. */
export async function eventuallyTrue(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}
