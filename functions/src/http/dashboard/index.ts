import { createRouter } from '../../core/http.js';
import { getDashboard, ticketsPerDay, ticketsPerUser } from '../../services/dashboard.js';

/** The admin's dashboard (spec 000 §2.5 and §7): sums of the aggregates written with the tickets. */
export const handler = createRouter('dashboard', {
  'GET /dashboard': (req) => getDashboard(req.identity, req.query),
  'GET /dashboard/ticketsUsers': (req) => ticketsPerUser(req.identity, req.query),
  'GET /dashboard/ticketsDay': (req) => ticketsPerDay(req.identity, req.query),
});
