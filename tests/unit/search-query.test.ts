import fc from 'fast-check';
import { parseQuery, hasPositiveTerm } from '../../src/modules/search/query-parser.js';
import { snippetOf, SNIPPET_MAX } from '../../src/modules/search/snippets.js';

/** What a person types, read into terms (docs/modules/search.md, "What you can type"), and the snippets' offsets. */
describe('parseQuery', () => {
  test('when words, a phrase, exclusions, a #tag and an @name are typed, then each becomes its term; only the last word typing on is a prefix', () => {
    expect(parseQuery('plumber "street party" -noisy -"car boot" #StreetParty @anna kitch').terms).toEqual([
      { kind: 'word', text: 'plumber', prefix: false },
      { kind: 'phrase', text: 'street party' },
      { kind: 'exclude', text: 'noisy', phrase: false },
      { kind: 'exclude', text: 'car boot', phrase: true },
      { kind: 'tag', tag: 'streetparty', prefix: false },
      { kind: 'user', username: 'anna', prefix: false },
      { kind: 'word', text: 'kitch', prefix: true },
    ]);
    expect(parseQuery('kitch ').terms).toEqual([{ kind: 'word', text: 'kitch', prefix: false }]);
    expect(parseQuery('kitch.').terms).toEqual([{ kind: 'word', text: 'kitch', prefix: false }]);
    expect(parseQuery('#gard').terms).toEqual([{ kind: 'tag', tag: 'gard', prefix: true }]);
  });

  test('when punctuation, operators of other syntaxes or an unclosed quote are typed, then they only separate words', () => {
    expect(parseQuery("a&b|c !d (e) 'f':*").terms.map((t) => (t.kind === 'word' ? t.text : t.kind))).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(parseQuery('"unclosed phrase here').terms).toEqual([{ kind: 'phrase', text: 'unclosed phrase here' }]);
    expect(parseQuery('e-bike').terms.map((t) => t.kind === 'word' && t.text)).toEqual(['e', 'bike']);
    expect(hasPositiveTerm(parseQuery('-only -excluded'))).toBe(false);
    expect(parseQuery('').terms).toEqual([]);
  });

  test('for any text, parsing never throws, and every word holds only letters and digits (safe to quote for to_tsquery)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'grapheme' }), (q) => {
        const { terms, nameText } = parseQuery(q);
        expect(terms.length).toBeLessThanOrEqual(16);
        expect(nameText.length).toBeLessThanOrEqual(200);
        for (const t of terms) if (t.kind === 'word') expect(t.text).toMatch(/^[\p{L}\p{M}\p{N}]+$/u);
      }),
      { numRuns: 500 },
    );
  });
});

describe('snippetOf', () => {
  test('when the database marked words, then the marks become offsets into plain text; the prefix word is marked too', () => {
    const { snippet, highlights } = snippetOf('Our \u0001plumber\u0002 fixed the plumbing', ['plumbi']);
    expect(snippet).toBe('Our plumber fixed the plumbing');
    expect(highlights.map(([a, b]) => snippet.slice(a, b))).toEqual(['plumber', 'plumbing']);
  });

  test('when the text is long, then the snippet has at most 200 characters around the first match, offsets inside it', () => {
    const text = `${'word '.repeat(100)}the \u0001Café\u0002 ${'more '.repeat(100)}`;
    const { snippet, highlights } = snippetOf(text, []);
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_MAX);
    expect(highlights.map(([a, b]) => snippet.slice(a, b))).toEqual(['Café']);
  });

  test('for any text and marks, the offsets stay inside the snippet and never split a surrogate pair', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 40, unit: 'grapheme' }), fc.boolean()), { maxLength: 30 }), (parts) => {
        const headline = parts.map(([t, marked]) => (marked ? `\u0001${t}\u0002` : t)).join(' ');
        const { snippet, highlights } = snippetOf(headline, ['a']);
        expect(snippet.length).toBeLessThanOrEqual(SNIPPET_MAX);
        for (const [a, b] of highlights) {
          expect(0 <= a && a < b && b <= snippet.length).toBe(true);
        }
        expect(snippet).not.toMatch(/[\u0001\u0002]/);
        expect(/^[\udc00-\udfff]/.test(snippet)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
