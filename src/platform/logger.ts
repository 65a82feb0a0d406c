import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    // Never write secrets to the logs.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'password', 'new_password', 'otp', '*.password'],
  });
}
