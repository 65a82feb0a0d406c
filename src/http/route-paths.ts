/**
 * How contract paths become Express routes, and in which order they are mounted.
 */

/** `/api/feed/posts/{post_id}/` → `/api/feed/posts/:post_id/` */
export const expressPath = (contractPath: string) => contractPath.replace(/\{(\w+)\}/g, ':$1');

/**
 * Sort order for Express paths: at the first segment where one path has a parameter and the other a
 * fixed name, the fixed name comes first, so `/api/users/search/` is not taken for `/api/users/:username`.
 * Paths that agree on their common segments are ordered by length. That tie-break makes this a total
 * order: without it `Array.sort` may leave `/s/:p/` before `/s/t/` when a shorter `/s/` sits between them.
 */
export function compareSpecificity(a: string, b: string): number {
  const sa = segmentKinds(a);
  const sb = segmentKinds(b);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    if (sa[i] !== sb[i]) return sa[i] - sb[i];
  }
  return sa.length - sb.length;
}

/** 0 for a fixed segment, 1 for a parameter. */
const segmentKinds = (path: string) =>
  path
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith(':') ? 1 : 0));
