import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { isPublicAddress } from '../../src/platform/public-address.js';
import { closeWebhookConnections, sendWebhook, type SendOptions } from '../../src/modules/webhooks/sender.js';

/**
 * Outbound safety of webhooks (DESIGN.md section 12) without WEBHOOK_ALLOW_PRIVATE_ENDPOINTS. No test here sends a
 * packet outside loopback: names are resolved by a stub, and every attempt that must be refused runs with a
 * connection hook that fails the test if it is ever called.
 */
const neverConnect: SendOptions['request'] = (url) => {
  throw new Error(`a connection was attempted to ${url.href}`);
};
const stubResolver = (table: Record<string, string[]>) => {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: net.isIP(address) }));
  };
  return { resolve, calls };
};

describe('the address check', () => {
  test.each([
    ['10.0.0.1'],
    ['10.255.255.255'],
    ['172.16.0.1'],
    ['172.31.255.254'],
    ['192.168.1.10'],
    ['169.254.169.254'],
    ['127.0.0.1'],
    ['127.8.9.10'],
    ['0.0.0.0'],
    ['100.64.0.1'],
    ['224.0.0.1'],
    ['255.255.255.255'],
    ['::1'],
    ['::'],
    ['fc00::1'],
    ['fd12:3456::1'],
    ['fe80::1'],
    ['febf::1'],
    ['::ffff:127.0.0.1'],
    ['::ffff:10.1.2.3'],
    ['::ffff:7f00:1'],
    ['::ffff:c0a8:101'],
    ['64:ff9b::a00:1'],
    ['2002:7f00:1::'],
    ['ff02::1'],
  ])('%s is refused', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each([['8.8.8.8'], ['1.1.1.1'], ['172.32.0.1'], ['192.169.0.1'], ['2606:4700:4700::1111'], ['2a00:1450:4001::200e']])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  test('something that is not an address is refused', () => {
    expect(isPublicAddress('example.com')).toBe(false);
  });
});

describe('sending without the test setting', () => {
  test.each([
    ['10.0.0.7'],
    ['172.20.1.1'],
    ['192.168.0.2'],
    ['169.254.169.254'],
    ['fc00::5'],
    ['fe80::5'],
    ['::ffff:192.168.0.1'],
  ])('when a name resolves to %s, then nothing is sent and no connection is attempted', async (address) => {
    const dns = stubResolver({ 'hooks.example.com': [address] });
    const result = await sendWebhook('https://hooks.example.com/in', '{}', {}, { allowPrivate: false, resolve: dns.resolve, request: neverConnect });
    expect(result).toEqual({ outcome: 'refused', reason: `The host resolves to an address that is not public (${address}).` });
    expect(dns.calls).toEqual(['hooks.example.com']);
  });

  test('when a name resolves to a public and a private address, then it is refused (a rebinding name cannot pick later)', async () => {
    const dns = stubResolver({ 'mixed.example.com': ['8.8.8.8', '10.0.0.1'] });
    const result = await sendWebhook('https://mixed.example.com/', '{}', {}, { allowPrivate: false, resolve: dns.resolve, request: neverConnect });
    expect(result.outcome).toBe('refused');
  });

  test('plain http and URLs with credentials are refused before any resolution', async () => {
    const dns = stubResolver({});
    expect((await sendWebhook('http://hooks.example.com/', '{}', {}, { allowPrivate: false, resolve: dns.resolve, request: neverConnect })).outcome).toBe('refused');
    expect((await sendWebhook('https://u:p@hooks.example.com/', '{}', {}, { allowPrivate: false, resolve: dns.resolve, request: neverConnect })).outcome).toBe('refused');
    expect(dns.calls).toEqual([]);
  });

  test('when the URL is https://127.0.0.1:PORT/ or https://[::1]:PORT/ of a listener, then the listener gets no connection', async () => {
    let connections = 0;
    const listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    // Dual-stack where the machine has IPv6 (::1 and 127.0.0.1 both reach it), else IPv4 loopback only.
    await new Promise<void>((resolve) => {
      listener.once('error', () => listener.listen(0, '127.0.0.1', () => resolve()));
      listener.listen(0, '::', () => resolve());
    });
    const { port } = listener.address() as AddressInfo;
    try {
      for (const url of [`https://127.0.0.1:${port}/`, `https://[::1]:${port}/`, `https://[::ffff:127.0.0.1]:${port}/`]) {
        const result = await sendWebhook(url, '{}', {}, { allowPrivate: false });
        expect([url, result.outcome]).toEqual([url, 'refused']);
      }
      // The listener does answer connections: a direct one is counted.
      await new Promise<void>((resolve) => net.connect(port, '127.0.0.1').on('close', () => resolve()).on('error', () => resolve()));
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});

describe('redirects and the checked address', () => {
  test('when a receiver answers 302 to another listener, then the redirect is not followed: the attempt failed and the target got no connection', async () => {
    let targetConnections = 0;
    const target = net.createServer((socket) => {
      targetConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
    const targetPort = (target.address() as AddressInfo).port;
    const standIn = http.createServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${targetPort}/` });
      res.end();
    });
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', () => resolve()));
    try {
      // The stand-in plays the public receiver: only the test setting lets a loopback address be reached at all.
      const dns = stubResolver({ 'public-receiver.example': ['127.0.0.1'] });
      const result = await sendWebhook(`http://public-receiver.example:${(standIn.address() as AddressInfo).port}/`, '{}', {}, { allowPrivate: true, resolve: dns.resolve });
      expect(result).toMatchObject({ outcome: 'answered', statusCode: 302 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(targetConnections).toBe(0);
    } finally {
      await new Promise((resolve) => standIn.close(resolve));
      await new Promise((resolve) => target.close(resolve));
    }
  });

  test('the connection goes to the address that was checked, without a second resolution (DNS rebinding)', async () => {
    const seen: string[] = [];
    const receiver = http.createServer((req, res) => {
      seen.push(String(req.headers.host));
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (receiver.address() as AddressInfo).port;
      // `rebind.invalid` exists only in the stub, resolved once: the system resolver would not find it.
      const dns = stubResolver({ 'rebind.invalid': ['127.0.0.1'] });
      const result = await sendWebhook(`http://rebind.invalid:${port}/`, '{}', {}, { allowPrivate: true, resolve: dns.resolve });
      expect(result).toMatchObject({ outcome: 'answered', statusCode: 200, body: 'ok' });
      expect(dns.calls).toEqual(['rebind.invalid']);
      expect(seen).toEqual([`rebind.invalid:${port}`]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  test('at most 1 KB of an answer is kept', async () => {
    const receiver = http.createServer((_req, res) => res.end('y'.repeat(100_000)));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    try {
      const result = await sendWebhook(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, '{}', {}, { allowPrivate: true });
      expect(result).toMatchObject({ outcome: 'answered', statusCode: 200 });
      expect((result as { body: string }).body).toHaveLength(1024);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('kept-alive connections', () => {
  /** A loopback receiver that counts connections and the requests on each. */
  async function countingReceiver(host = '127.0.0.1', port = 0, onRequest?: (nth: number, req: http.IncomingMessage, res: http.ServerResponse) => boolean) {
    const perConnection = new Map<net.Socket, number>();
    const server = http.createServer((req, res) => {
      const nth = (perConnection.get(req.socket) ?? 0) + 1;
      perConnection.set(req.socket, nth);
      if (onRequest?.(nth, req, res)) return;
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
    return {
      port: (server.address() as AddressInfo).port,
      connections: () => perConnection.size,
      requests: () => [...perConnection.values()].reduce((a, b) => a + b, 0),
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  test('when one receiver gets two events, then they travel over one connection, and the name is resolved and checked for each', async () => {
    const receiver = await countingReceiver();
    try {
      const dns = stubResolver({ 'till.invalid': ['127.0.0.1'] });
      for (let i = 0; i < 2; i++) {
        expect(await sendWebhook(`http://till.invalid:${receiver.port}/`, '{}', {}, { allowPrivate: true, resolve: dns.resolve })).toMatchObject({ outcome: 'answered', statusCode: 200 });
      }
      expect(receiver.requests()).toBe(2);
      expect(receiver.connections()).toBe(1);
      expect(dns.calls).toEqual(['till.invalid', 'till.invalid']);
    } finally {
      closeWebhookConnections();
      await receiver.close();
    }
  });

  test('when the name resolves to another address, then the next event connects to that address (a connection is reused only to the address just checked)', async () => {
    const first = await countingReceiver('127.0.0.1');
    const second = await countingReceiver('127.0.0.2', first.port);
    try {
      const table: Record<string, string[]> = { 'moving.invalid': ['127.0.0.1'] };
      const dns = stubResolver(table);
      const url = `http://moving.invalid:${first.port}/`;
      expect(await sendWebhook(url, '{}', {}, { allowPrivate: true, resolve: dns.resolve })).toMatchObject({ statusCode: 200 });
      table['moving.invalid'] = ['127.0.0.2'];
      expect(await sendWebhook(url, '{}', {}, { allowPrivate: true, resolve: dns.resolve })).toMatchObject({ statusCode: 200 });
      expect([first.requests(), second.requests()]).toEqual([1, 1]);
    } finally {
      closeWebhookConnections();
      await first.close();
      await second.close();
    }
  });

  test('when a kept connection is reset as the next event is sent on it, then the event is sent once more on a new connection and answered', async () => {
    // The second request on a connection is met with a reset, as when a receiver closes an idle connection just
    // as it is reused.
    const receiver = await countingReceiver('127.0.0.1', 0, (nth, req) => {
      if (nth !== 2) return false;
      req.socket.resetAndDestroy();
      return true;
    });
    try {
      const url = `http://127.0.0.1:${receiver.port}/`;
      expect(await sendWebhook(url, '{}', {}, { allowPrivate: true })).toMatchObject({ statusCode: 200 });
      expect(await sendWebhook(url, '{}', {}, { allowPrivate: true })).toMatchObject({ outcome: 'answered', statusCode: 200 });
      expect(receiver.connections()).toBe(2);
      expect(receiver.requests()).toBe(3);
    } finally {
      closeWebhookConnections();
      await receiver.close();
    }
  });
});
