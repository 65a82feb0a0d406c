import { AppError } from '../../src/core/errors.js';
import { pageParams, paginated } from '../../src/core/pagination.js';
import type { RequestContext } from '../../src/core/context.js';

const ctx = { baseUrl: 'https://api.example.test' } as RequestContext;
const defaults = { size: 20, max: 100 };

describe('pageParams', () => {
  test('when nothing is given, then page 1 with the default size', () => {
    expect(pageParams({}, defaults)).toEqual({ page: 1, pageSize: 20, limit: 20, offset: 0 });
  });

  test('when page_size is above the maximum, then it is clamped to the maximum', () => {
    expect(pageParams({ page: 3, page_size: 500 }, defaults)).toEqual({ page: 3, pageSize: 100, limit: 100, offset: 200 });
  });

  test('when page and page_size are given, then the offset follows from them', () => {
    expect(pageParams({ page: 4, page_size: 15 }, { size: 15, max: 50 })).toMatchObject({ limit: 15, offset: 45 });
  });
});

describe('paginated', () => {
  test('when a middle page is read, then next and previous are absolute links carrying page, page_size and the filters', () => {
    const params = pageParams({ page: 2, page_size: 2 }, defaults);
    const page = paginated(ctx, '/api/stores/products/', params, 5, ['c', 'd'], { category: 'books_music', search: '', store: undefined });
    expect(page).toEqual({
      count: 5,
      next: 'https://api.example.test/api/stores/products/?category=books_music&page=3&page_size=2',
      previous: 'https://api.example.test/api/stores/products/?category=books_music&page=1&page_size=2',
      results: ['c', 'd'],
    });
  });

  test('when the last page is read, then next is null', () => {
    const page = paginated(ctx, '/api/x/', pageParams({ page: 3, page_size: 2 }, defaults), 5, ['e']);
    expect(page.next).toBeNull();
    expect(page.previous).toBe('https://api.example.test/api/x/?page=2&page_size=2');
  });

  test('when the first page is read, then previous is null', () => {
    const page = paginated(ctx, '/api/x/', pageParams({}, defaults), 1, ['a']);
    expect(page).toEqual({ count: 1, next: null, previous: null, results: ['a'] });
  });

  test('when page 1 of an empty list is read, then it is an empty page, not an error', () => {
    expect(paginated(ctx, '/api/x/', pageParams({}, defaults), 0, [])).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('when a page past the end is read, then 404 {detail: "Invalid page."}', () => {
    const read = () => paginated(ctx, '/api/x/', pageParams({ page: 4, page_size: 2 }, defaults), 5, []);
    expect(read).toThrow(AppError);
    try {
      read();
    } catch (err) {
      expect(err).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
    }
  });
});
