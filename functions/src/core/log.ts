import pino from 'pino';
import { env } from './env.js';

/** Structured logs; secrets never go in (tokens and passwords are redacted by path as a safety net). */
export const log = pino({
  level: env.logLevel,
  base: undefined,
  redact: {
    paths: ['password', '*.password', 'token', '*.token', 'authorization', '*.authorization', 'headers.authorization'],
    censor: '[redacted]',
  },
});
