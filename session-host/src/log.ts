import pino from 'pino';

/**
 * The session host's structured logs (a long-running container, so pino rather than the Lambda
 * logger of the functions). Secrets never go in; tokens and passwords are redacted by path as a
 * safety net.
 */
export const log = pino({
  level: process.env.LOG_LEVEL || 'info',
  base: undefined,
  redact: {
    paths: ['password', '*.password', 'token', '*.token', 'authorization', '*.authorization', 'headers.authorization'],
    censor: '[redacted]',
  },
});
