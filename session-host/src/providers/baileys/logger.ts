import type { SocketConfig } from '@whiskeysockets/baileys';
import type { Logger } from '../../provider.js';

export type BaileysLogger = SocketConfig['logger'];

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

/**
 * Baileys wants a pino-like logger (level, child, trace…error); the host gives each session a
 * `Logger`. Baileys is very chatty below `info` (every stanza), so the level filters here, before
 * objects are built into log lines; `child` bindings are merged into each line.
 */
export function baileysLogger(log: Logger, level: Level = 'info', bindings: Record<string, unknown> = {}): BaileysLogger {
  const min = LEVELS.indexOf(level);
  const write = (at: Level) => (obj: unknown, msg?: string) => {
    if (LEVELS.indexOf(at) < min) return;
    const sink = at === 'trace' ? 'debug' : at;
    if (typeof obj === 'string') log[sink]({ ...bindings, baileys: true }, msg ? `${obj} ${msg}` : obj);
    else log[sink]({ ...bindings, ...(obj && typeof obj === 'object' ? (obj as object) : { value: obj }), baileys: true }, msg);
  };
  return {
    level,
    child: (more) => baileysLogger(log, level, { ...bindings, ...more }),
    trace: write('trace'),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
  };
}
