import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export type LogFormat = 'pretty' | 'json';

/**
 * JSON lines for machines (log shippers, `docker logs` into a collector); readable lines for a person at a
 * terminal. The default follows standard output: a terminal gets pretty lines, a pipe or a file gets JSON.
 */
export function createLogger(level: string, format: LogFormat = defaultLogFormat()): Logger {
  const options = {
    level,
    base: undefined,
    // Never write secrets to the logs.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'password', 'new_password', 'otp', '*.password'],
  };
  return format === 'pretty' ? pino(options, prettyStream()) : pino(options);
}

export function defaultLogFormat(stdoutIsTerminal = process.stdout.isTTY === true): LogFormat {
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/**
 * pino-pretty in this thread, writing synchronously (a person reads these lines as they happen, and the
 * volume at a terminal is small). Loaded only when used, so JSON logging never pays for it.
 */
function prettyStream(): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (opts: Record<string, unknown>) => DestinationStream;
  return pretty({ colorize: process.stdout.isTTY === true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}
