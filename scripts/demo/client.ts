/**
 * A small REST client of the running service: JSON or multipart bodies, bearer tokens, and patience: a 429 or a
 * 503 is retried after the `Retry-After` the service asks for (the demo keeps to the service's limits rather than
 * needing them lifted).
 */
export interface ApiAnswer {
  status: number;
  body: any;
}

export interface UploadFile {
  name: string;
  type: string;
  data: Buffer;
}

export type Fields = Record<string, string | number | boolean | string[] | UploadFile | UploadFile[] | undefined>;

export class ApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly answer: ApiAnswer,
  ) {
    super(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}

const isFile = (v: unknown): v is UploadFile => typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadFile).data);

export class Api {
  /** Seconds spent waiting because the service asked to (429 / 503). */
  waitedSeconds = 0;

  constructor(
    readonly baseUrl: string,
    private readonly maxWaitSeconds = 120,
  ) {}

  async call(
    method: string,
    path: string,
    opts: { token?: string; json?: unknown; form?: Fields; query?: Record<string, string | number | undefined>; headers?: Record<string, string>; noRetry?: boolean } = {},
  ): Promise<ApiAnswer> {
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | FormData | undefined;
      if (opts.form) {
        const form = new FormData();
        for (const [k, v] of Object.entries(opts.form)) {
          if (v === undefined) continue;
          const items = Array.isArray(v) ? v : [v];
          for (const item of items) {
            if (isFile(item)) form.append(k, new Blob([item.data], { type: item.type }), item.name);
            else form.append(k, String(item));
          }
        }
        body = form;
      } else if (opts.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.json);
      }
      const res = await fetch(url, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      if ((res.status === 429 || res.status === 503) && !opts.noRetry && attempt < 20) {
        const wait = Math.max(1, Number(res.headers.get('retry-after')) || 2);
        if (this.waitedSeconds + wait > this.maxWaitSeconds * 10) throw new ApiError(method, path, { status: res.status, body: parsed });
        this.waitedSeconds += wait;
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
        continue;
      }
      return { status: res.status, body: parsed };
    }
  }

  /** Like call(), but anything outside `expect` is an error. */
  async must(method: string, path: string, opts: Parameters<Api['call']>[2] = {}, expect: number[] = [200, 201]): Promise<any> {
    const answer = await this.call(method, path, opts);
    if (!expect.includes(answer.status)) throw new ApiError(method, path, answer);
    return answer.body;
  }
}

/** Runs `work` over `items`, at most `limit` at a time, in order of start. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
