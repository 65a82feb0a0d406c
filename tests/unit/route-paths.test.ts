import { compareSpecificity, expressPath } from '../../src/http/route-paths.js';

describe('expressPath', () => {
  test('when a contract path has placeholders, then they become Express parameters', () => {
    expect(expressPath('/api/posts/posts/{post_id}/comments/')).toBe('/api/posts/posts/:post_id/comments/');
    expect(expressPath('/api/a/{x}/b/{y_id}/')).toBe('/api/a/:x/b/:y_id/');
    expect(expressPath('/api/users/search/')).toBe('/api/users/search/');
  });
});

describe('compareSpecificity', () => {
  const sorted = (paths: string[]) => [...paths].sort(compareSpecificity);

  test('when a fixed segment and a parameter compete, then the fixed one comes first', () => {
    expect(sorted(['/api/users/:username', '/api/users/search/'])).toEqual(['/api/users/search/', '/api/users/:username']);
  });

  test('when paths differ deeper down, then the first differing segment decides', () => {
    expect(sorted(['/api/posts/:id/comments/', '/api/posts/comments/replies/'])).toEqual(['/api/posts/comments/replies/', '/api/posts/:id/comments/']);
  });

  test('when a shorter path sits between a parameter path and a fixed path, then the fixed path still comes first', () => {
    // An order that is not total lets Array.sort keep `/s/:p/` ahead of `/s/t/` here.
    const order = sorted(['/api/s/:p/', '/api/s/', '/api/s/t/']);
    expect(order.indexOf('/api/s/t/')).toBeLessThan(order.indexOf('/api/s/:p/'));
  });

  test('when many routes are sorted in any order, then every fixed path precedes the parameter path it competes with', () => {
    const paths = ['/api/stores/stores/:id/', '/api/stores/stores/', '/api/stores/stores/mine/', '/api/stores/:slug/', '/api/stores/products/', '/api/stores/stores/:id/sync/', '/api/stores/stores/by-slug/x/'];
    for (let i = 0; i < 20; i++) {
      const shuffled = [...paths].sort(() => Math.random() - 0.5);
      const order = sorted(shuffled);
      expect(order.indexOf('/api/stores/stores/mine/')).toBeLessThan(order.indexOf('/api/stores/stores/:id/'));
      expect(order.indexOf('/api/stores/products/')).toBeLessThan(order.indexOf('/api/stores/:slug/'));
      expect(order.indexOf('/api/stores/stores/by-slug/x/')).toBeLessThan(order.indexOf('/api/stores/stores/:id/sync/'));
    }
  });
});
