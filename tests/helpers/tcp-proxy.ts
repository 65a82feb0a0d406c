import net from 'node:net';

/**
 * A TCP proxy between the app and a shared service (PostgreSQL, Redis), so a test can take the service
 * away without touching it: `cut()` drops every open connection and refuses new ones (as a stopped server
 * does), `restore()` listens again on the same port. The real services are shared by other engineers' runs
 * and must never be stopped.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Where the proxy connects: a TCP address, or a unix socket (the embedded database's). */
export type ProxyTarget = { host: string; port: number } | { path: string };

export async function startTcpProxy(target: ProxyTarget): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const makeServer = () =>
    net.createServer((client) => {
      const upstream = 'path' in target ? net.connect(target.path) : net.connect(target.port, target.host);
      open.add(client);
      open.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  let server = makeServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  let listening = true;

  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
      open.clear();
    });

  return {
    port,
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      // A unix socket directory given as `?host=` (the embedded database) would win over the proxy's address.
      parsed.searchParams.delete('host');
      return parsed.toString();
    },
    cut: stopListening,
    async restore() {
      if (listening) return;
      server = makeServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      listening = true;
    },
    close: stopListening,
  };
}

/**
 * The service behind a URL: its host and port, or for a PostgreSQL URL naming a unix socket directory in `?host=`
 * (the embedded database of a test run), the socket file in it, as libpq names it.
 */
export const targetOf = (url: string): ProxyTarget => {
  const parsed = new URL(url);
  const socketDir = parsed.searchParams.get('host');
  if (socketDir?.startsWith('/')) return { path: `${socketDir}/.s.PGSQL.${parsed.port || 5432}` };
  return { host: parsed.hostname, port: Number(parsed.port) };
};
