import type { OperationRoute } from './generated/api.js';

/**
 * One operation over REST, built from its route: path parameters into the path, the rest of the flat input into
 * the query (GET) or the body (JSON; multipart when a file is in it). The answer is kept as it came; the caller
 * decides what an error status means.
 */
export interface RestAnswer {
  status: number;
  body: unknown;
  /** Retry-After, as sent. */
  retryAfter: string | null;
  /** The Date header, as sent (the client's estimate of the server's clock uses it). */
  date: string | null;
}

export interface RestRequest {
  baseUrl: string;
  route: OperationRoute;
  input: Record<string, unknown>;
  token?: string | null;
  headers?: Record<string, string>;
  fetch: typeof fetch;
  signal?: AbortSignal;
}

/** The field error of a call refused by dotPathParameter (the service's 400 body shape: `{[parameter]: [message]}`). */
export const DOT_PATH_PARAMETER = 'Not a valid path parameter: "." and ".." name no item.';

/**
 * The path parameter of `input` that a URL would read as a step instead of a name, if any: `.` or `..` as a whole
 * segment (`new URL` resolves `/api/feed/posts/../` to `/api/feed/`, another operation). Such a value can never be
 * sent as a path parameter (the URL standard reads `%2e` as a dot too), so the call is refused before anything is
 * sent. Other values are percent-encoded whole (`%2e` typed by someone goes as `%252e`, a name).
 */
export function dotPathParameter(route: OperationRoute, input: Record<string, unknown>): string | null {
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
    const value = input[name];
    if (value === undefined || value === null) continue;
    const segment = String(value);
    if (segment === '.' || segment === '..') return name;
  }
  return null;
}

export async function restCall(req: RestRequest): Promise<RestAnswer> {
  const dotted = dotPathParameter(req.route, req.input);
  // Never sent to another path than the operation's (callers refuse it before: Client.request).
  if (dotted) throw new TypeError(`@hyperlocal/client: "${String(req.input[dotted])}" cannot be the path parameter ${dotted}`);
  const { route, input } = req;
  const rest: Record<string, unknown> = { ...input };
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const url = new URL(path, req.baseUrl.replace(/\/*$/, '/'));
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  let body: string | FormData | undefined;
  if (route.method === 'GET') {
    for (const [name, value] of Object.entries(rest)) for (const item of listOf(value)) url.searchParams.append(name, text(item));
  } else if (hasFile(route, rest)) {
    body = formData(rest);
  } else if (Object.values(rest).some((v) => v !== undefined)) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(rest);
  }
  const res = await req.fetch(url, { method: route.method, headers, body, signal: req.signal });
  const raw = await res.text();
  let parsed: unknown = raw;
  if (res.status === 204 || raw === '') parsed = null;
  else {
    try {
      parsed = JSON.parse(raw);
    } catch {
      // not JSON (a proxy's error page): kept as text
    }
  }
  return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after'), date: res.headers.get('date') };
}

const isBlob = (v: unknown): v is Blob => typeof Blob !== 'undefined' && v instanceof Blob;

/** Whether the input carries a file in one of the operation's file fields: such a call goes over REST. */
export function hasFile(route: OperationRoute, input: Record<string, unknown>): boolean {
  return route.files.some((name) => listOf(input[name]).some(isBlob));
}

const listOf = (value: unknown): unknown[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);

const text = (value: unknown): string => (typeof value === 'object' ? JSON.stringify(value) : String(value));

/** Lists become repeated fields; objects go as JSON text (multipart has no nesting); null and undefined are left out. */
function formData(input: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(input)) {
    for (const item of listOf(value)) {
      if (isBlob(item)) form.append(name, item, (item as File).name || name);
      else form.append(name, text(item));
    }
  }
  return form;
}
