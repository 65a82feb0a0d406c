import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { socketFileName } from '../../src/platform/embedded-db-protocol.js';
import { WithoutReadyForQuery } from '../../src/platform/embedded-db-wire.js';

/**
 * The embedded database speaks the extended-query protocol as PostgreSQL does when a statement fails: an
 * ErrorResponse, the batch's remaining messages discarded, and exactly one ReadyForQuery, at the Sync. PGlite 0.5.8
 * also sent one right after the ErrorResponse (PGlite issue 958), and pg, reading two for one Sync, answered every
 * later query on that connection with the previous one's answer until it dropped the connection (a request's own
 * refusal became a 503, a failed transaction took the next one down). Through the real embedded database process.
 */
let dir: string;
let embedded: EmbeddedDatabase;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-wire-'));
  embedded = await startEmbeddedDatabase({ dataDir: path.join(dir, 'pglite') });
}, 120_000);
afterAll(async () => {
  await embedded?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** A frontend message: type byte, int32 length (itself included), body. */
function message(type: string, ...body: (string | number[] | Buffer)[]): Buffer {
  const bytes = Buffer.concat(body.map((part) => (typeof part === 'string' ? Buffer.from(`${part}\0`) : Buffer.from(part))));
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(4 + bytes.length, 1);
  return Buffer.concat([header, bytes]);
}
const int16 = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const int32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

const parse = (sql: string) => message('P', '', sql, int16(0));
const bind = (...params: string[]) =>
  message('B', '', '', int16(0), int16(params.length), ...params.flatMap((p) => [int32(Buffer.byteLength(p)), Buffer.from(p)]), int16(0));
const describePortal = () => message('D', [0x50], [0]);
const execute = () => message('E', '', int32(0));
const sync = () => message('S');
const query = (sql: string) => message('Q', sql);

/**
 * A raw connection that records the backend's messages as `type` (ReadyForQuery as `Z:<status>`, an
 * ErrorResponse as `E:<sqlstate>`; ParameterStatus and NoticeResponse left out), so what the server sends is
 * counted, not what a driver makes of it.
 */
async function rawConnection() {
  const host = new URL(embedded.connectionString).searchParams.get('host')!;
  const socket = net.connect(path.join(host, socketFileName));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let pending = Buffer.alloc(0);
  let received: string[] = [];
  let waiter: { done: (seen: string[]) => boolean; resolve: () => void } | null = null;
  socket.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
      const length = 1 + pending.readInt32BE(1);
      const type = String.fromCharCode(pending[0]!);
      const body = pending.subarray(5, length);
      if (type === 'Z') received.push(`Z:${String.fromCharCode(body[0]!)}`);
      else if (type === 'E') {
        const fields = body.toString('utf8').split('\0');
        received.push(`E:${fields.find((f) => f.startsWith('C'))!.slice(1)}`);
      } else if (type !== 'S' && type !== 'N') received.push(type); // ParameterStatus and notices come and go
      pending = pending.subarray(length);
    }
    if (waiter?.done(received)) waiter.resolve();
  });
  /** Sends `bytes` and resolves with what the backend answered once `done` holds for it. */
  const exchange = (bytes: Buffer, done: (seen: string[]) => boolean) =>
    new Promise<string[]>((resolve, reject) => {
      received = [];
      const timer = setTimeout(() => reject(new Error(`no complete answer; received ${JSON.stringify(received)}`)), 10_000);
      waiter = {
        done,
        resolve: () => {
          clearTimeout(timer);
          waiter = null;
          resolve(received);
        },
      };
      socket.write(bytes);
    });
  const startup = Buffer.from([...int32(0), ...int32(196608), ...Buffer.from('user\0postgres\0database\0postgres\0\0')]);
  startup.writeInt32BE(startup.length, 0);
  await exchange(startup, (seen) => seen.includes('Z:I'));
  return {
    exchange,
    /** A simple query's answer: up to its CommandComplete (or error) and the ReadyForQuery after it. */
    simple: (sql: string) => exchange(query(sql), (seen) => seen.length >= 2 && seen.at(-1)!.startsWith('Z') && /^[CE]/.test(seen.at(-2)!)),
    close: () => {
      socket.end(message('X'));
      socket.destroy();
    },
  };
}

describe('the embedded database over the wire, when an extended-query statement fails', () => {
  test('when Bind refuses a parameter, then the backend answers ErrorResponse and exactly one ReadyForQuery, at the Sync, and the next query gets its own answer', async () => {
    const conn = await rawConnection();
    try {
      // One write, as pg sends it. Then a simple query: everything before its answer belongs to the batch.
      expect(await conn.simple('BEGIN')).toEqual(['C', 'Z:T']);
      const batch = conn.exchange(Buffer.concat([parse('SELECT $1::int AS n'), bind('not a number'), describePortal(), execute(), sync()]), (seen) =>
        seen.some((m) => m.startsWith('Z')),
      );
      expect(await batch).toEqual(['1', 'E:22P02', 'Z:E']);
      // A second ReadyForQuery for that batch would come first here, ahead of this query's own answer.
      expect(await conn.simple('ROLLBACK')).toEqual(['C', 'Z:I']);
      expect(await conn.simple('SELECT 1')).toEqual(['T', 'D', 'C', 'Z:I']);

      // Outside a transaction block the Sync ends the failed implicit transaction: status I.
      const outside = conn.exchange(Buffer.concat([parse('SELEC 1'), bind(), describePortal(), execute(), sync()]), (seen) => seen.some((m) => m.startsWith('Z')));
      expect(await outside).toEqual(['E:42601', 'Z:I']);
      expect(await conn.simple('SELECT 2')).toEqual(['T', 'D', 'C', 'Z:I']);
    } finally {
      conn.close();
    }
  });

  test('when Execute fails on a constraint in a statement calling PostGIS, then the batch ends with one ReadyForQuery and a successful batch after it is answered in full', async () => {
    const conn = await rawConnection();
    try {
      expect(await conn.simple('CREATE TABLE wire_refused (id int PRIMARY KEY, v int, g geography)')).toEqual(['C', 'Z:I']);
      expect(await conn.simple('INSERT INTO wire_refused VALUES (1, 1, NULL)')).toEqual(['C', 'Z:I']);
      expect(await conn.simple('ALTER TABLE wire_refused ADD CONSTRAINT wire_small CHECK (v < 10) NOT VALID')).toEqual(['C', 'Z:I']);
      expect(await conn.simple('BEGIN')).toEqual(['C', 'Z:T']);
      const update = 'UPDATE wire_refused SET v = $1, g = ST_SetSRID(ST_MakePoint($3, $4), 4326)::geography WHERE id = $2 RETURNING id';
      const failed = conn.exchange(Buffer.concat([parse(update), bind('50', '1', '2.35', '48.85'), describePortal(), execute(), sync()]), (seen) =>
        seen.some((m) => m.startsWith('Z')),
      );
      expect(await failed).toEqual(['1', '2', 'T', 'E:23514', 'Z:E']);
      expect(await conn.simple('ROLLBACK')).toEqual(['C', 'Z:I']);
      const ok = conn.exchange(Buffer.concat([parse(update), bind('5', '1', '2.35', '48.85'), describePortal(), execute(), sync()]), (seen) =>
        seen.some((m) => m.startsWith('Z')),
      );
      expect(await ok).toEqual(['1', '2', 'T', 'D', 'C', 'Z:I']);
    } finally {
      conn.close();
    }
  });

  test('when pg runs refused statements in transactions one after another, then each fails with its own error and the connection keeps answering in step', async () => {
    const pool = new pg.Pool({ connectionString: embedded.connectionString, max: 1 });
    const dropped: Error[] = [];
    pool.on('error', (err) => dropped.push(err));
    try {
      await pool.query('CREATE TABLE wire_pg (id int PRIMARY KEY, v int, g geography)');
      await pool.query('INSERT INTO wire_pg VALUES (1, 1, NULL)');
      await pool.query('ALTER TABLE wire_pg ADD CONSTRAINT wire_pg_small CHECK (v < 10) NOT VALID');
      const client = await pool.connect();
      client.on('error', (err) => dropped.push(err));
      try {
        for (let round = 0; round < 20; round++) {
          await client.query('BEGIN');
          const refused = await client
            .query({ text: 'UPDATE wire_pg SET v = $1, g = ST_SetSRID(ST_MakePoint($3, $4), 4326)::geography WHERE id = $2 RETURNING *', values: [50 + round, 1, 2.35, 48.85], rowMode: 'array' })
            .then(
              () => 'updated',
              (err: { code?: string }) => err.code,
            );
          const rolledBack = await client.query('ROLLBACK').then((r) => r.command);
          const next = await client.query<{ round: number }>('SELECT $1::int AS round', [round]).then((r) => r.rows);
          expect({ round, refused, rolledBack, next }).toEqual({ round, refused: '23514', rolledBack: 'ROLLBACK', next: [{ round }] });
        }
      } finally {
        client.release();
      }
      expect((await pool.query<{ v: number }>('SELECT v FROM wire_pg WHERE id = 1')).rows).toEqual([{ v: 1 }]);
      expect(dropped.map((err) => err.message)).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe('WithoutReadyForQuery', () => {
  const backend = (type: string, body: number[]) => {
    const out = Buffer.alloc(5 + body.length);
    out.write(type, 0);
    out.writeInt32BE(4 + body.length, 1);
    Buffer.from(body).copy(out, 5);
    return out;
  };
  const error = backend('E', [...Buffer.from('SERROR\0C23514\0\0')]);
  const ready = backend('Z', [0x45]);
  const dataRow = backend('D', [0, 1, ...int32(3), 0x5a, 0x5a, 0x5a]); // a row holding "ZZZ", not a ReadyForQuery
  const complete = backend('C', [...Buffer.from('UPDATE 1\0')]);

  test('when the stream is cut anywhere, into one or two pieces, then everything but ReadyForQuery comes out in order', () => {
    const stream = Buffer.concat([dataRow, ready, complete, error, ready]);
    const expected = Buffer.concat([dataRow, complete, error]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const out: Buffer[] = [];
      const filter = new WithoutReadyForQuery((data) => out.push(Buffer.from(data)));
      filter.write(stream.subarray(0, cut));
      filter.write(stream.subarray(cut));
      filter.end();
      expect({ cut, out: Buffer.concat(out).toString('hex') }).toEqual({ cut, out: expected.toString('hex') });
    }
  });

  test('when the stream comes one byte at a time, then the result is the same', () => {
    const stream = Buffer.concat([ready, dataRow, error, ready, complete]);
    const out: Buffer[] = [];
    const filter = new WithoutReadyForQuery((data) => out.push(Buffer.from(data)));
    for (const byte of stream) filter.write(Buffer.from([byte]));
    filter.end();
    expect(Buffer.concat(out).toString('hex')).toBe(Buffer.concat([dataRow, error, complete]).toString('hex'));
  });
});
