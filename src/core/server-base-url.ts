/**
 * The base of absolute URLs in what the service pushes to other users (events, notifications).
 * A request's Host header is the caller's to choose: URLs built from it may go back to that caller,
 * never to anyone else. Pushed payloads use PUBLIC_BASE_URL, or else the address the service listens on,
 * recorded when it starts listening.
 */
let current: string | null = null;

export function setServerBaseUrl(url: string): void {
  current = url.replace(/\/+$/, '');
}

/** PUBLIC_BASE_URL or the listening address; `http://localhost` before the server listens (scripts). */
export function serverBaseUrl(): string {
  return current ?? 'http://localhost';
}

/** `http://<host>:<port>` for a bound address; a wildcard host is reached as localhost. */
export function listeningBaseUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
