import { listeningBaseUrl } from '../../src/core/server-base-url.js';

describe('listeningBaseUrl', () => {
  test.each([
    ['127.0.0.1', 8000, 'http://127.0.0.1:8000'],
    ['0.0.0.0', 8000, 'http://localhost:8000'],
    ['::', 8080, 'http://localhost:8080'],
    ['::1', 8000, 'http://[::1]:8000'],
    ['api.internal', 3000, 'http://api.internal:3000'],
  ])('when the service listens on %s port %d, then pushed URLs start with %s', (host, port, expected) => {
    expect(listeningBaseUrl(host, port)).toBe(expected);
  });
});
