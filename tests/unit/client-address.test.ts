import { clientAddress, isTrustedProxy } from '../../src/core/client-address.js';

describe('isTrustedProxy', () => {
  test.each(['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', '172.16.0.5', '172.31.255.1', '192.168.1.10', '169.254.1.1', 'fd00::1', 'fe80::1'])(
    'when the peer is %s (loopback, private or link-local), then it is a trusted proxy',
    (address) => {
      expect(isTrustedProxy(address)).toBe(true);
    },
  );

  test.each(['203.0.113.7', '8.8.8.8', '172.32.0.1', '::ffff:198.51.100.2', '2001:db8::1', '', 'not-an-ip'])('when the peer is %p, then it is not trusted', (address) => {
    expect(isTrustedProxy(address)).toBe(false);
  });
});

describe('clientAddress', () => {
  test('when a client connects directly from a public address, then X-Forwarded-For is ignored', () => {
    expect(clientAddress('203.0.113.7', '1.2.3.4')).toBe('203.0.113.7');
  });

  test('when a trusted proxy forwards the request, then the address it names is the client', () => {
    expect(clientAddress('172.18.0.3', '198.51.100.20')).toBe('198.51.100.20');
    expect(clientAddress('::ffff:127.0.0.1', '198.51.100.20')).toBe('198.51.100.20');
  });

  test('when a client puts its own X-Forwarded-For in front of the proxy, then the address the proxy saw wins', () => {
    // nginx appends the address it saw: "spoofed, real"
    expect(clientAddress('10.0.0.2', '1.1.1.1, 198.51.100.20')).toBe('198.51.100.20');
  });

  test('when the chain is proxies all the way, then the leftmost address is the client', () => {
    expect(clientAddress('127.0.0.1', '10.9.8.7, 10.0.0.2')).toBe('10.9.8.7');
  });

  test('when there is no header, then the peer is the client', () => {
    expect(clientAddress('127.0.0.1', undefined)).toBe('127.0.0.1');
  });
});
