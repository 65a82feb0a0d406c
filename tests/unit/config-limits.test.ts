import { ConfigError, loadConfig } from '../../src/platform/config.js';

/** The limits and the adapter are configuration with defaults; a bad value stops the start, naming the variable. */
describe('limits and adapter configuration', () => {
  test('when nothing is set, then the documented defaults apply', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      REDIS_ADAPTER: 'classic',
      RATE_LIMIT_DEFAULT_READS_PER_MINUTE: 600,
      RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE: 120,
      SOCKET_MAX_CONNECTIONS_PER_USER: 20,
      SOCKET_MAX_CONNECTIONS_PER_IP: 500,
      SOCKET_EVENTS_PER_SECOND: 20,
      SOCKET_MAX_PAYLOAD_BYTES: 1_000_000,
    });
  });

  test.each([
    ['REDIS_ADAPTER', 'cluster'],
    ['RATE_LIMIT_DEFAULT_READS_PER_MINUTE', '0'],
    ['RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE', 'many'],
    ['SOCKET_MAX_CONNECTIONS_PER_USER', '-1'],
    ['SOCKET_MAX_CONNECTIONS_PER_IP', '1.5'],
    ['SOCKET_EVENTS_PER_SECOND', '0'],
    ['SOCKET_MAX_PAYLOAD_BYTES', 'big'],
  ])('when %s is %p, then the configuration is refused, naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(variable));
  });
});
