import jwt from 'jsonwebtoken';
import { signingKey } from '../../src/platform/secrets.js';

/** The signing key is a secret KeyObject, made once, and interchangeable with the string secret. */
describe('signingKey', () => {
  test('when made from a secret, then it is a secret KeyObject, and tokens signed with either form verify with the other', () => {
    const key = signingKey('a-shared-secret');
    expect(key.type).toBe('secret');
    const byString = jwt.sign({ type: 'access' }, 'a-shared-secret', { algorithm: 'HS256' });
    const byKey = jwt.sign({ type: 'access' }, key, { algorithm: 'HS256' });
    expect(jwt.verify(byString, key, { algorithms: ['HS256'] })).toMatchObject({ type: 'access' });
    expect(jwt.verify(byKey, 'a-shared-secret', { algorithms: ['HS256'] })).toMatchObject({ type: 'access' });
    expect(() => jwt.verify(byKey, signingKey('another-secret'), { algorithms: ['HS256'] })).toThrow();
  });
});
