import { fold } from './query-parser.js';

/**
 * A snippet: plain text around the match, at most SNIPPET_MAX characters, and the [start, end) offsets of the
 * matched words in it (UTF-16 code units, as JavaScript's String indexes). No markup: an app that renders HTML
 * from it has nothing to render.
 *
 * The database marks the stemmed matches (ts_headline with \u0001 and \u0002 around them, characters that posts
 * cannot hold as text a person typed); the prefix word typed last is marked here, on words starting with it once
 * accents and case are folded.
 */
export const SNIPPET_MAX = 200;
const START = '\u0001';
const STOP = '\u0002';
const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
const MARK = /[\u0001\u0002]/g;

export interface Snippet {
  snippet: string;
  highlights: Array<[number, number]>;
}

export function snippetOf(headline: string, prefixes: string[]): Snippet {
  let text = '';
  const ranges: Array<[number, number]> = [];
  let open = -1;
  // The text between the marks is copied a run at a time (not a character at a time: this runs for every result).
  let from = 0;
  for (const mark of headline.matchAll(MARK)) {
    text += headline.slice(from, mark.index);
    from = mark.index! + 1;
    if (mark[0] === START) open = text.length;
    else {
      if (open >= 0 && text.length > open) ranges.push([open, text.length]);
      open = -1;
    }
  }
  text += headline.slice(from);
  text = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ');
  const folded = prefixes.map(fold).filter(Boolean);
  if (folded.length) {
    for (const m of text.matchAll(WORD)) {
      const w = fold(m[0]);
      if (folded.some((p) => w.startsWith(p))) ranges.push([m.index!, m.index! + m[0].length]);
    }
  }
  return cut(text, merge(ranges));
}

function merge(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/** At most SNIPPET_MAX characters, starting a little before the first highlight, on a word boundary when it can. */
function cut(text: string, ranges: Array<[number, number]>): Snippet {
  const trimmedStart = text.length - text.trimStart().length;
  let start = trimmedStart;
  if (text.length - start > SNIPPET_MAX && ranges.length) {
    const first = ranges[0][0];
    start = Math.max(start, Math.min(first - 40, text.length - SNIPPET_MAX));
    const space = text.lastIndexOf(' ', start);
    if (space >= trimmedStart && start - space < 20) start = space + 1;
    // Never cut a surrogate pair in two.
    if (start > 0 && /[\udc00-\udfff]/.test(text[start])) start--;
  }
  let end = Math.min(text.length, start + SNIPPET_MAX);
  if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1])) end--;
  const snippet = text.slice(start, end).trimEnd();
  const highlights = ranges
    .map(([a, b]) => [Math.max(a - start, 0), Math.min(b - start, snippet.length)] as [number, number])
    .filter(([a, b]) => b > a && a >= 0);
  return { snippet, highlights };
}
