import { call } from './call';

/** The admin's dashboard (spec 000 §2.5 and §7): cards and attendants for a period, and the two charts. */
export const dashboardApi = {
  summary: (query: { days?: number; date_from?: string; date_to?: string }) => call('GET /dashboard', { query }),
  ticketsUsers: (initialDate: string, finalDate: string) => call('GET /dashboard/ticketsUsers', { query: { initialDate, finalDate } }),
  ticketsDay: (initialDate: string, finalDate: string) => call('GET /dashboard/ticketsDay', { query: { initialDate, finalDate } }),
};
