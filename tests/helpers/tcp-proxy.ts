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

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const makeServer = () =>
    net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
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

export const targetOf = (url: string) => {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
};
