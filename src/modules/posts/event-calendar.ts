/**
 * iCalendar (RFC 5545) for event posts: `GET /api/feed/posts/{post_id}/event.ics` and the place's feed
 * `GET /api/feed/events.ics?location_id=`. Lines end in CRLF and are folded at 75 octets (never inside a UTF-8
 * character), text values are escaped (backslash, semicolon, comma, newline), times are UTC (`...Z`), each event's
 * UID is the post's id at the service's host (stable across fetches and edits), and DTSTAMP is when the post last
 * changed (no METHOD: a published feed, so DTSTAMP is the last revision of the information).
 */
export interface CalendarEvent {
  postId: string;
  title: string;
  description: string;
  startsAt: Date;
  endsAt: Date | null;
  placeName: string | null;
  address: string | null;
  updatedAt: Date;
  createdAt: Date;
  url: string;
}

/** TEXT escaping of RFC 5545 3.3.11. */
export function escapeText(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n');
}

/** 20261127T120000Z */
export function utcStamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * Content line folding (RFC 5545 3.1): a line longer than 75 octets is split, each continuation starting with one
 * space, which counts towards its 75. Splits fall between UTF-8 characters.
 */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  let limit = 75;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (octets + size > limit) {
      out.push(current);
      current = ' ';
      octets = 1;
      limit = 75;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n');
}

export function calendar(events: readonly CalendarEvent[], opts: { host: string; name?: string }): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hyperlocal//Neighbourhood events//EN', 'CALSCALE:GREGORIAN'];
  if (opts.name) lines.push(`X-WR-CALNAME:${escapeText(opts.name)}`);
  for (const e of events) {
    lines.push('BEGIN:VEVENT', `UID:${e.postId}@${opts.host}`, `DTSTAMP:${utcStamp(e.updatedAt)}`, `DTSTART:${utcStamp(e.startsAt)}`);
    if (e.endsAt) lines.push(`DTEND:${utcStamp(e.endsAt)}`);
    lines.push(`SUMMARY:${escapeText(e.title)}`);
    if (e.description) lines.push(`DESCRIPTION:${escapeText(e.description)}`);
    const where = [e.placeName, e.address].filter((v): v is string => Boolean(v)).join(', ');
    if (where) lines.push(`LOCATION:${escapeText(where)}`);
    lines.push(`URL:${e.url}`, `CREATED:${utcStamp(e.createdAt)}`, `LAST-MODIFIED:${utcStamp(e.updatedAt)}`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('\r\n') + '\r\n';
}
