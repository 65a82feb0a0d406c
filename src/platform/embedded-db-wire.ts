// The embedded database's answers over the wire protocol, made to follow PostgreSQL's extended-query flow.
//
// Why: PGlite 0.5.8 (the newest release pglite-postgis 0.2.8 accepts) answers an extended-query message that
// fails (Parse, Bind, Describe or Execute) with its ErrorResponse followed at once by a ReadyForQuery. PostgreSQL
// sends ReadyForQuery only at the Sync that ends the batch, and PGlite does too: it discards the batch's
// remaining messages and answers the Sync with its own ReadyForQuery (PGlite issue 958). Traced through
// pglite-socket 0.2.11, which hands PGlite one frontend message at a time:
//
//   in P -> [1]    in B -> [2]    in D -> [T]    in E -> [E, Z(E)]    in S -> [Z(E)]     (an UPDATE refused by a CHECK)
//   in P -> [1]    in B -> [E, Z(E)]    in D -> []    in E -> []      in S -> [Z(E)]     (a parameter refused by Bind)
//
// Two ReadyForQuery for one Sync: pg completes the failed query at the first, the second completes the next
// query the caller sends (its ROLLBACK) before that query's own answer arrives, and every answer after that
// is one query late until pg meets "unexpected commandComplete" and drops the connection. Whether pg reads the
// first ReadyForQuery before the caller sends the next query is a race, hence a request now and then answering
// 503 instead of its own refusal, and a failed transaction taking the next one down with it.
//
// The fix: a ReadyForQuery in the answer to Parse, Bind, Describe, Execute, Close or Flush is left out. The
// protocol never sends one there, and the Sync that must follow gets PGlite's own, with the right transaction
// status (E inside a failed transaction block, I otherwise). Nothing else is changed or held back: the other
// messages pass through as PGlite streams them. PGlite 0.5.14 no longer sends the premature ReadyForQuery; this
// class can go once pglite-postgis supports a PGlite that recent.
import { PGlite, type ExecProtocolOptionsStream } from '@electric-sql/pglite';

const READY_FOR_QUERY = 0x5a; // 'Z'
const EMPTY = Buffer.alloc(0);
/** Parse, Bind, Describe, Execute, Close, Flush: the extended-query messages that Sync ends. */
const EXTENDED_QUERY_MESSAGES = new Set([...'PBDECH'].map((c) => c.charCodeAt(0)));

/**
 * Forwards a stream of backend messages without its ReadyForQuery messages. The stream comes in chunks that need
 * not end on a message boundary: only a header split across two chunks is held (5 bytes at most); every other
 * byte is forwarded in the call that received it, as a view of the caller's chunk.
 */
export class WithoutReadyForQuery {
  /** Bytes of the current message not yet received. */
  #rest = 0;
  /** Whether the current message is a ReadyForQuery (its bytes are not forwarded). */
  #dropping = false;
  /** A message header split across chunks, held until its type is known. */
  #head: Buffer = EMPTY;

  constructor(private readonly forward: (data: Uint8Array) => void) {}

  write(chunk: Uint8Array): void {
    let i = 0;
    let from = 0;
    const flush = (to: number) => {
      if (to > from) this.forward(chunk.subarray(from, to));
      from = to;
    };
    while (i < chunk.length) {
      if (this.#rest > 0) {
        const n = Math.min(this.#rest, chunk.length - i);
        if (this.#dropping) {
          flush(i);
          from = i + n;
        }
        i += n;
        this.#rest -= n;
        continue;
      }
      // A message starts here: its type and length.
      const need = 5 - this.#head.length;
      if (chunk.length - i < need) {
        flush(i);
        this.#head = Buffer.concat([this.#head, chunk.subarray(i)]);
        return;
      }
      const held = this.#head;
      // The usual case reads the header in place: no copy for each of the thousands of DataRows of a result.
      const header = held.length === 0 ? chunk : Buffer.concat([held, chunk.subarray(i, i + need)]);
      const at = held.length === 0 ? i : 0;
      const length = ((header[at + 1]! << 24) | (header[at + 2]! << 16) | (header[at + 3]! << 8) | header[at + 4]!) >>> 0;
      this.#head = EMPTY;
      this.#dropping = header[at] === READY_FOR_QUERY;
      if (this.#dropping) {
        flush(i);
        from = i + need;
      } else if (held.length > 0) {
        // The start of this message came at the end of the previous chunk (so i is 0 here).
        this.forward(held);
      }
      i += need;
      this.#rest = length - 4;
    }
    flush(i);
  }

  /** The end of the stream: a header still held was never completed, so it is forwarded as it came. */
  end(): void {
    if (this.#head.length > 0) this.forward(this.#head);
    this.#head = EMPTY;
  }
}

/**
 * PGlite as the embedded database process serves it to pglite-socket: identical but for the premature
 * ReadyForQuery left out (see the top of this file). pglite-socket is the only caller of execProtocolRawStream;
 * PGlite's own query() and exec() take another path and are unchanged.
 */
export class WireProtocolPGlite extends PGlite {
  override async execProtocolRawStream(message: Uint8Array, options: ExecProtocolOptionsStream): Promise<void> {
    if (!EXTENDED_QUERY_MESSAGES.has(message[0]!)) return super.execProtocolRawStream(message, options);
    const filter = new WithoutReadyForQuery(options.onRawData);
    try {
      await super.execProtocolRawStream(message, { ...options, onRawData: (data) => filter.write(data) });
    } finally {
      filter.end();
    }
  }
}
