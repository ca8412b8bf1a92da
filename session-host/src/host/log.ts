import type { Logger } from '../provider.js';

/** A logger that adds fixed fields (task, shard, connection) to every line of another logger. */
export function withFields(base: Logger, fields: Record<string, unknown>): Logger {
  const wrap =
    (level: keyof Logger) =>
    (obj: object | string, msg?: string): void => {
      if (typeof obj === 'string') base[level]({ ...fields }, obj);
      else base[level]({ ...fields, ...obj }, msg);
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
