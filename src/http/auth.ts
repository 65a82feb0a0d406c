import passport from 'passport';
import { Strategy as JwtStrategy, ExtractJwt } from 'passport-jwt';
import type { Request, Response, NextFunction } from 'express';
import { platform } from '../platform/index.js';
import { userFromAccessClaims } from '../modules/accounts/tokens.js';
import type { AuthUser } from '../core/context.js';

/**
 * Bearer authentication on REST through passport-jwt; the user lookup is the same function the
 * socket handshake uses. The result is recorded on the request; whether the operation needs a user
 * is decided later by runOperation from the operation's auth rule.
 */
export interface AuthResult {
  user: AuthUser | null;
  authError: boolean;
}

export function configurePassport(): passport.PassportStatic {
  passport.use(
    new JwtStrategy(
      {
        jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
        // The KeyObject made once at start: a string secret costs a key parse per request (jsonwebtoken 9).
        // Read at call time, since a test process starts several servers, each with its own secret.
        secretOrKeyProvider: (_req, _token, done) => done(null, platform.jwtKey as unknown as string),
        algorithms: ['HS256'],
      },
      (claims: Record<string, unknown>, done: (err: unknown, user?: AuthUser | false) => void) => {
        userFromAccessClaims(claims).then((user) => done(null, user ?? false), done);
      },
    ),
  );
  return passport;
}

export function authenticate(req: Request, res: Response, next: NextFunction): void {
  const header = req.get('authorization');
  if (!header) {
    res.locals.auth = { user: null, authError: false } satisfies AuthResult;
    return next();
  }
  passport.authenticate('jwt', { session: false }, (err: unknown, user: AuthUser | false) => {
    if (err) return next(err);
    res.locals.auth = { user: user || null, authError: !user } satisfies AuthResult;
    next();
  })(req, res, next);
}
