/**
 * Variables of automated texts (server-behaviour §3): `{{name}}`, `{{firstName}}`, `{{ms}}`,
 * `{{hora}}`, `{{protocol}}`, `{{queue}}`, `{{agent}}`. Pure: the clock and the time zone are
 * arguments, so greetings are testable at any hour.
 */
export interface VariableContext {
  name?: string | null;
  queue?: string | null;
  agent?: string | null;
  /** IANA zone of the company (setting `timezone`). */
  timeZone: string;
  now?: Date;
}

/** The company's IANA zone (setting `timezone`) from the signed-in user the console keeps. */
export function companyTimeZone(user: { company?: { settings?: { key: string; value: string }[] } } | null | undefined): string {
  return user?.company?.settings?.find((s) => s.key === 'timezone')?.value || DEFAULT_TIME_ZONE;
}
/** The zone of a company that set none (shared/src/settings.ts DEFAULT_SETTINGS.timezone). */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** Wall-clock parts of `now` in `timeZone` (falls back to UTC for an unknown zone). */
export function zonedParts(now: Date, timeZone: string) {
  const p: Record<string, string> = {};
  for (const x of partsFormatter(timeZone).formatToParts(now)) p[x.type] = x.value;
  return { year: p.year, month: p.month, day: p.day, hour: Number(p.hour), minute: p.minute, second: p.second };
}

// Building an Intl.DateTimeFormat costs far more than formatting with one, and the console formats
// every ticket row's date: one per zone, kept (zones are the ~600 IANA names, bounded).
const partsFormatters = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let fmt = partsFormatters.get(timeZone);
  if (!fmt) {
    const opts = { hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' } as const;
    try {
      fmt = new Intl.DateTimeFormat('en-US', { ...opts, timeZone });
    } catch {
      fmt = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: 'UTC' });
    }
    partsFormatters.set(timeZone, fmt);
  }
  return fmt;
}

/** Bom dia 06-11, Boa tarde 12-17, Boa noite 18-23, Boa madrugada 00-05. */
export function greetingOf(hour: number): string {
  if (hour >= 6 && hour < 12) return 'Bom dia';
  if (hour >= 12 && hour < 18) return 'Boa tarde';
  if (hour >= 18) return 'Boa noite';
  return 'Boa madrugada';
}

export function fillVariables(text: string, ctx: VariableContext): string {
  const z = zonedParts(ctx.now ?? new Date(), ctx.timeZone);
  const name = (ctx.name ?? '').trim();
  const values: Record<string, string> = {
    name,
    firstName: name.split(/\s+/)[0] ?? '',
    ms: greetingOf(z.hour),
    hora: `${z.hour}:${z.minute}:${z.second}`,
    protocol: `${z.year}${z.month}${z.day}${String(z.hour).padStart(2, '0')}${z.minute}${z.second}`,
    queue: ctx.queue ?? '',
    agent: ctx.agent ?? '',
  };
  // Unknown variables stay as typed: they may be meant for another filler (campaigns).
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, key: string) => (key in values ? values[key] : whole));
}

/** Automated texts of server-behaviour §6. */
export const ACCEPT_GREETING = '{{ms}} {{name}}, meu nome é {{agent}} e vou prosseguir com seu atendimento!';
export const TRANSFER_NOTICE = '{{ms}} {{name}}, seu atendimento foi transferido. Departamento: {{queue}}. Atendente: {{agent}}.';
export const RATING_REQUEST = 'Digite de 1 a 3 para qualificar nosso atendimento:\n*1* - _Insatisfeito_\n*2* - _Satisfeito_\n*3* - _Muito Satisfeito_';
