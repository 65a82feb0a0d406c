import { clientAddress, configureTrustedProxies, isTrustedProxy, parseTrustedProxies, TrustedProxiesError } from '../../src/core/client-address.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

afterEach(() => configureTrustedProxies('loopback'));

describe('parseTrustedProxies', () => {
  test.each(['loopback', 'none', '10.0.0.5', '172.18.0.0/16', 'fd00::/8', '::1', 'loopback, 10.244.0.0/16, fd00::2', 'uniquelocal', 'linklocal', '0.0.0.0/0'])('when TRUSTED_PROXIES is %p, then it is accepted', (spec) => {
    expect(() => parseTrustedProxies(spec)).not.toThrow();
  });

  test.each(['10.0.0.0/33', 'fd00::/129', '10.0.0/8', 'proxy.internal', '10.0.0.1/8/2', '10.0.0.0/', '10.0.0.0/-1', 'none,10.0.0.1', ' , '])('when TRUSTED_PROXIES is %p, then it is refused naming the entry', (spec) => {
    expect(() => parseTrustedProxies(spec)).toThrow(TrustedProxiesError);
  });

  test('when the configuration has a bad entry, then the config error names TRUSTED_PROXIES and the entry', () => {
    expect(() => loadConfig({}, { TRUSTED_PROXIES: 'loopback,10.0.0.300' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { TRUSTED_PROXIES: 'loopback,10.0.0.300' })).toThrow(/TRUSTED_PROXIES: "10\.0\.0\.300" is not an address/);
  });

  test('when TRUSTED_PROXIES is unset or empty, then it is loopback', () => {
    expect(loadConfig({}).TRUSTED_PROXIES).toBe('loopback');
    expect(loadConfig({ TRUSTED_PROXIES: '' }).TRUSTED_PROXIES).toBe('loopback');
  });
});

describe('isTrustedProxy', () => {
  test.each(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'])('by default, when the peer is %s (loopback), then it is trusted', (address) => {
    expect(isTrustedProxy(address)).toBe(true);
  });

  test.each(['10.1.2.3', '172.18.0.5', '192.168.1.10', 'fd00::1', '203.0.113.7', '::ffff:198.51.100.2', '', 'not-an-ip'])('by default, when the peer is %p, then it is not trusted', (address) => {
    expect(isTrustedProxy(address)).toBe(false);
  });

  test('when a network range is configured, then peers inside it are trusted and the others are not, in both families', () => {
    configureTrustedProxies('172.18.0.0/16, fd00:abcd::/32');
    expect(isTrustedProxy('172.18.3.4')).toBe(true);
    expect(isTrustedProxy('::ffff:172.18.3.4')).toBe(true);
    expect(isTrustedProxy('fd00:abcd::7')).toBe(true);
    expect(isTrustedProxy('172.19.0.1')).toBe(false);
    expect(isTrustedProxy('fd00:abce::7')).toBe(false);
    expect(isTrustedProxy('127.0.0.1')).toBe(false);
  });

  test('when one address is configured, then only that address is trusted', () => {
    configureTrustedProxies('10.0.0.5');
    expect(isTrustedProxy('10.0.0.5')).toBe(true);
    expect(isTrustedProxy('10.0.0.6')).toBe(false);
  });

  test('when TRUSTED_PROXIES is none, then not even loopback is trusted', () => {
    configureTrustedProxies('none');
    expect(isTrustedProxy('127.0.0.1')).toBe(false);
    expect(isTrustedProxy('::1')).toBe(false);
  });
});

describe('clientAddress', () => {
  test('when a client connects directly from an untrusted address, then X-Forwarded-For is ignored', () => {
    expect(clientAddress('203.0.113.7', '1.2.3.4')).toBe('203.0.113.7');
    // A private peer is no longer believed unless it is listed: behind source NAT, that is every client.
    expect(clientAddress('172.18.0.3', '1.2.3.4')).toBe('172.18.0.3');
  });

  test('when a trusted proxy forwards the request, then the address it names is the client', () => {
    configureTrustedProxies('loopback,172.18.0.0/16');
    expect(clientAddress('172.18.0.3', '198.51.100.20')).toBe('198.51.100.20');
    expect(clientAddress('::ffff:127.0.0.1', '198.51.100.20')).toBe('198.51.100.20');
  });

  test('when a client puts its own X-Forwarded-For in front of the proxy, then the address the proxy saw wins', () => {
    configureTrustedProxies('10.0.0.2');
    // nginx appends the address it saw: "spoofed, real"
    expect(clientAddress('10.0.0.2', '1.1.1.1, 198.51.100.20')).toBe('198.51.100.20');
  });

  test('when the chain is trusted proxies all the way, then the leftmost address is the client', () => {
    configureTrustedProxies('loopback,10.0.0.0/8');
    expect(clientAddress('127.0.0.1', '10.9.8.7, 10.0.0.2')).toBe('10.9.8.7');
  });

  test('when a hop in the chain is not trusted, then the walk stops there', () => {
    expect(clientAddress('127.0.0.1', '1.1.1.1, 10.0.0.2')).toBe('10.0.0.2');
  });

  test('when there is no header, then the peer is the client', () => {
    expect(clientAddress('127.0.0.1', undefined)).toBe('127.0.0.1');
  });
});
