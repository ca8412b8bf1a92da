/**
 * The dashboard's answers (spec 000 §2.5 and §7; server-behaviour §12; decision 60). Times are
 * minutes (averages, not rounded); counts are whole. Zod-free: the console's dashboard imports it.
 */

export interface DashboardCounters {
  /** Open now (being served). */
  supportHappening: number;
  /** Pending now (waiting in a queue). */
  supportPending: number;
  /** Closed in the period. */
  supportFinished: number;
  /** Conversations opened in the period (new or reopened). */
  opened: number;
  /** Contacts created in the period ("Novos Contatos"). */
  newContacts: number;
  /** Average minutes from accept to close of the tickets closed in the period; null with none. */
  avgSupportTime: number | null;
  /** Average minutes from queued to accepted of the tickets accepted in the period; null with none. */
  avgWaitTime: number | null;
  /** Average minutes from queued to an agent's first answer, of the first answers given in the period; null with none. */
  avgFirstResponseTime: number | null;
  /** Average rating (1 to 3) given in the period; null with none. */
  ratingAverage: number | null;
  ratingCount: number;
}

export interface DashboardAttendant {
  id: number;
  name: string;
  online: boolean;
  /** Tickets this agent closed in the period. */
  tickets: number;
  avgSupportTime: number | null;
  avgFirstResponseTime: number | null;
  /** Average rating (1 to 3) of the tickets this agent served; null with none. */
  rating: number | null;
  ratingCount: number;
}

export interface DashboardShare {
  id: number | null;
  name: string;
  color?: string;
  /** Tickets closed in the period. */
  finished: number;
}

export interface DashboardResult {
  /** The period summed, YYYY-MM-DD on the company's calendar, inclusive. */
  period: { from: string; to: string };
  counters: DashboardCounters;
  attendants: DashboardAttendant[];
  byQueue: DashboardShare[];
  byConnection: DashboardShare[];
}

/** `GET /dashboard/ticketsUsers`: tickets closed per agent (most first). */
export interface DashboardTicketsUsers {
  data: { nome: string; quantidade: number }[];
  count: number;
}

/** `GET /dashboard/ticketsDay`: conversations opened per hour (one day: `horario` '00'-'23') or per day (`data` YYYY-MM-DD). */
export interface DashboardTicketsDay {
  data: ({ horario: string; total: number } | { data: string; total: number })[];
  count: number;
}

/** Minutes as hours and minutes (`1h 05m`, `12m`), seconds under a minute (`40s`); '—' when there is nothing to average. */
export function formatMinutes(minutes: number | null | undefined): string {
  if (minutes === null || minutes === undefined || !Number.isFinite(minutes)) return '—';
  if (minutes < 1) return `${Math.round(minutes * 60)}s`;
  const total = Math.round(minutes);
  const h = Math.floor(total / 60);
  const m = total % 60;
  return h ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m`;
}
