/**
 * What a person typed, read into terms (docs/modules/search.md, "What matches what"). Never fails: whatever is not
 * understood is read as words, and characters that are neither letters nor digits only separate words.
 *
 * - `word`: must be found, in any of its English forms (stemmed by the database), accents and case ignored.
 * - the last word, when nothing follows it (no space, no closing quote): also matches as the start of a word.
 * - `"a phrase"`: these words next to each other, in this order (an unclosed quote runs to the end).
 * - `-word`, `-"a phrase"`: excluded.
 * - `#tag`: the hashtag (posts and comments carrying it; tags that start with it).
 * - `@name`: a username (its posts and comments; people whose username starts with it).
 */
export type Term =
  | { kind: 'word'; text: string; prefix: boolean }
  | { kind: 'phrase'; text: string }
  | { kind: 'exclude'; text: string; phrase: boolean }
  | { kind: 'tag'; tag: string; prefix: boolean }
  | { kind: 'user'; username: string; prefix: boolean };

export interface ParsedQuery {
  terms: Term[];
  /** The plain words and phrases, as typed, for the name searches (trigram similarity). */
  nameText: string;
}

/** A letter of any script, a digit or `_`: what hashtags and words are made of. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;
const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;
export const TAG_RE = /^[\p{L}\p{M}\p{N}_]{1,50}$/u;
const USERNAME_RE = /^[\p{L}\p{M}\p{N}_.+-]{1,150}$/u;
const MAX_TERMS = 16;

/** Plain words of a run of text (letters and digits of any script; everything else separates). */
export function wordsOf(text: string): string[] {
  return text.normalize('NFC').match(WORD_RUN) ?? [];
}

export function parseQuery(input: string): ParsedQuery {
  const q = input.normalize('NFC');
  const terms: Term[] = [];
  const names: string[] = [];
  let i = 0;
  const n = q.length;
  const isSpace = (c: string) => /\s/u.test(c);
  const readUntilSpace = (from: number) => {
    let j = from;
    while (j < n && !isSpace(q[j])) j++;
    return j;
  };
  const readQuoted = (from: number): { text: string; end: number; closed: boolean } => {
    const close = q.indexOf('"', from);
    if (close < 0) return { text: q.slice(from), end: n, closed: false };
    return { text: q.slice(from, close), end: close + 1, closed: true };
  };
  while (i < n && terms.length < MAX_TERMS) {
    const c = q[i];
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const { text, end } = readQuoted(i + 1);
      const words = wordsOf(text);
      if (words.length === 1) terms.push({ kind: 'word', text: words[0], prefix: false });
      else if (words.length > 1) terms.push({ kind: 'phrase', text: words.join(' ') });
      names.push(...words);
      i = end;
      continue;
    }
    if (c === '-' && i + 1 < n && (q[i + 1] === '"' || WORD_CHAR.test(q[i + 1])) && (i === 0 || isSpace(q[i - 1]))) {
      if (q[i + 1] === '"') {
        const { text, end } = readQuoted(i + 2);
        const words = wordsOf(text);
        if (words.length) terms.push({ kind: 'exclude', text: words.join(' '), phrase: words.length > 1 });
        i = end;
      } else {
        const end = readUntilSpace(i + 1);
        for (const w of wordsOf(q.slice(i + 1, end))) terms.push({ kind: 'exclude', text: w, phrase: false });
        i = end;
      }
      continue;
    }
    if ((c === '#' || c === '@') && i + 1 < n && !isSpace(q[i + 1])) {
      const end = readUntilSpace(i + 1);
      const raw = q.slice(i + 1, end).replace(/[.,;:!?)\]}'"]+$/u, '');
      const atEnd = end === n;
      if (c === '#' && TAG_RE.test(raw)) terms.push({ kind: 'tag', tag: raw.toLowerCase(), prefix: atEnd });
      else if (c === '@' && USERNAME_RE.test(raw)) terms.push({ kind: 'user', username: raw, prefix: atEnd });
      else {
        const words = wordsOf(raw);
        words.forEach((w, k) => terms.push({ kind: 'word', text: w, prefix: atEnd && k === words.length - 1 }));
        names.push(...words);
      }
      i = end;
      continue;
    }
    const end = readUntilSpace(i);
    const chunk = q.slice(i, end);
    const words = wordsOf(chunk);
    const lastChar = chunk[chunk.length - 1] ?? '';
    const typingOn = end === n && WORD_CHAR.test(lastChar);
    words.forEach((w, k) => terms.push({ kind: 'word', text: w, prefix: typingOn && k === words.length - 1 }));
    names.push(...words);
    i = end;
  }
  return { terms: terms.slice(0, MAX_TERMS), nameText: names.join(' ').slice(0, 200) };
}

/** Whether the query asks for anything (exclusions alone find nothing: every word must match). */
export function hasPositiveTerm(parsed: ParsedQuery): boolean {
  return parsed.terms.some((t) => t.kind !== 'exclude');
}

const ASCII = /^[\x00-\x7f]*$/;

/** Words whose start a highlighter may mark in any text: the prefix word, folded (accents and case). */
export function fold(text: string): string {
  // Most words are plain ASCII, which has no accents to take off: lower case is all (a highlighter folds every word).
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}
