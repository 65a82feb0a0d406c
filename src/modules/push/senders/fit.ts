/**
 * FCM and APNs take at most 4 KB per push, and both senders carry the title and body twice: once for the system to
 * show (FCM `notification`, APNs `aps.alert`) and once in the payload for the app. The payload alone may take 3,000
 * bytes (DESIGN 10), so the shown copy of the body is what gives way: cut at a character boundary, with "…".
 */
export function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const room = maxBytes - Buffer.byteLength('…');
  if (room <= 0) return '';
  let cut = '';
  let used = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (used + size > room) break;
    cut += char;
    used += size;
  }
  return cut + '…';
}

/**
 * `build(body)` with the longest cut of `body` whose result, as JSON, takes at most `limit` bytes (the whole body when
 * it fits; an empty one when nothing else would).
 */
export function fitBody<T>(body: string, limit: number, build: (body: string) => T): T {
  const whole = build(body);
  const size = Buffer.byteLength(JSON.stringify(whole));
  if (size <= limit) return whole;
  const withoutBody = Buffer.byteLength(JSON.stringify(build('')));
  return build(cutToBytes(body, Math.max(0, limit - withoutBody - 16)));
}
