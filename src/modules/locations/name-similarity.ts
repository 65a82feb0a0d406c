/**
 * How alike two location names are, for grouping suggestions at 85 % (contract limit): the normalised
 * Levenshtein ratio `1 - distance / longer length` of the names folded to lower case without accents,
 * with punctuation and runs of spaces reduced to one space. "St. Mary's" and "st marys" are the same
 * name; "Greenwood" and "Greenwod" are 89 % alike.
 */
export const SIMILARITY_GROUPING_THRESHOLD = 0.85;

export function foldName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Edit distance between two sequences of characters (code points, so accents-free emoji count once). */
export function levenshtein(a: readonly string[], b: readonly string[]): number {
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** 0..1; 1 for names that fold to the same text. */
export function nameSimilarity(a: string, b: string): number {
  const fa = [...foldName(a)];
  const fb = [...foldName(b)];
  const longer = Math.max(fa.length, fb.length);
  if (longer === 0) return 1;
  return 1 - levenshtein(fa, fb) / longer;
}

export const sameName = (a: string, b: string) => foldName(a) === foldName(b);
export const similarityPercent = (a: string, b: string) => Math.round(nameSimilarity(a, b) * 100);
