import { AppError, MESSAGES } from './errors.js';
import type { RequestContext } from './context.js';

/**
 * Page-number pagination in the contract's envelope {count, next, previous, results}.
 * `next`/`previous` are absolute URLs carrying page and page_size (and the list's filters),
 * built the same way on both transports so the bodies are identical.
 */
export interface PageParams {
  page: number;
  pageSize: number;
  limit: number;
  offset: number;
}

export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function pageParams(input: { page?: number; page_size?: number }, defaults: { size: number; max: number }): PageParams {
  const page = input.page ?? 1;
  const pageSize = Math.min(input.page_size ?? defaults.size, defaults.max);
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize };
}

/** Throws 404 {detail: 'Invalid page.'} for a page past the end (page 1 of an empty list is fine). */
export function assertPageExists(params: PageParams, count: number): void {
  if (params.page > 1 && params.offset >= count) throw new AppError(404, { detail: MESSAGES.invalidPage });
}

export function paginated<T>(
  ctx: RequestContext,
  path: string,
  params: PageParams,
  count: number,
  results: T[],
  filters: Record<string, string | number | boolean | undefined | null> = {},
): Paginated<T> {
  assertPageExists(params, count);
  const link = (page: number) => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
    query.set('page', String(page));
    query.set('page_size', String(params.pageSize));
    return `${ctx.baseUrl}${path}?${query.toString()}`;
  };
  const hasNext = params.offset + results.length < count;
  return {
    count,
    next: hasNext ? link(params.page + 1) : null,
    previous: params.page > 1 ? link(params.page - 1) : null,
    results,
  };
}
