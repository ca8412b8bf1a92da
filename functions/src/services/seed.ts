import { getItem, putItem } from '../core/db.js';
import { keys } from '../table/keys.js';
import { listPlans, createPlan } from './plans.js';
import { createCompany, listCompanies, updateCompany } from './companies.js';
import { createQueue, listQueueItems } from './queues.js';
import { createConnection, listConnectionItems } from './connections.js';
import { backfillSearchIndex, buildContactTicketLists, fillTicketContactViews, reindexContactNames } from './migrations.js';
import { rebuildTicketCounters } from './ticket-counters.js';
import { rebuildDashboardStats } from './dashboard-stats.js';
import { backfillDueIndex } from './billing.js';
import { log } from '../core/observability.js';
import { type CompanyItem, type UserItem } from '../table/items.js';
import { nowMs } from '../core/ports.js';

const DAY = 86_400_000;

export const DEMO_QUEUES = [
  { name: 'Atendimento', color: '#2563EB', orderQueue: 1, greetingMessage: 'Olá! Você está no Atendimento. Em que podemos ajudar?' },
  { name: 'Vendas', color: '#16A34A', orderQueue: 2, greetingMessage: 'Olá! Você está em Vendas. Um atendente já vai falar com você.' },
  { name: 'Financeiro', color: '#D97706', orderQueue: 3, greetingMessage: 'Olá! Você está no Financeiro. Informe o seu CPF ou CNPJ, por favor.' },
];

/**
 * First-start data for the local stack (issue 2 §2): "Plano 1" with every flag on, "Empresa 1"
 * (active, due a year ahead, left out of billing: the platform's own) whose admin is the super user, default settings and three queues and a sandbox connection.
 * Idempotent: a second start finds the super user and changes nothing.
 */
/** Seed steps are versioned so an older `.local/` gets the newer steps once, and never again. */
const SEED_VERSION = 10;
const seedMarker = keys.seed();

export async function seedLocal(opts: { adminEmail: string; adminPassword: string }): Promise<{ companyId: number; adminUserId: number; demoConnectionId?: number }> {
  const marker = await getItem<{ companyId: number; userId: number }>(keys.uniqueEmail(opts.adminEmail));
  const existing = marker ? await getItem<UserItem>(keys.user(marker.companyId, marker.userId)) : undefined;
  let companyId: number;
  let adminUserId: number;
  if (existing) {
    companyId = existing.companyId;
    adminUserId = existing.id;
  } else {
    const plans = await listPlans();
    const plan =
      plans.find((p) => p.name === 'Plano 1') ??
      (await createPlan({ name: 'Plano 1', users: 10, connections: 10, queues: 10, campaigns: 10, schedules: 200, value: 199.9 }));
    const { company, admin } = await createCompany(
      {
        name: 'Empresa 1',
        email: opts.adminEmail,
        phone: '',
        planId: plan.id,
        status: true,
        campaignsEnabled: true,
        dueDate: new Date(nowMs() + 365 * DAY).toISOString(),
        recurrence: 'MENSAL',
        billingExempt: true,
      },
      { adminPassword: opts.adminPassword, adminName: 'Admin', adminIsSuper: true },
    );
    companyId = company.id;
    adminUserId = admin!.id;
  }
  const applied = (await getItem<{ version: number }>(seedMarker))?.version ?? (existing ? 1 : 0);
  if (applied < 1 && (await listQueueItems(companyId)).length === 0) {
    for (const q of DEMO_QUEUES) await createQueue(companyId, q);
  }
  // A sandbox connection, so a person can play customers from the simulator at once.
  let demoConnectionId: number | undefined;
  if (applied < 2 && (await listConnectionItems(companyId)).length === 0) {
    const queues = await listQueueItems(companyId);
    // The stack links it to a simulated phone once the session host shows its QR (infra/local/stack.ts).
    demoConnectionId = (await createConnection(companyId, {
      name: 'WhatsApp Sandbox',
      provider: 'sandbox',
      isDefault: true,
      queueIds: queues.map((q) => q.id),
      greetingMessage: 'Olá! Bem-vindo à Empresa 1. Escolha um setor:',
    })).id;
  }
  // Contacts, messages and tickets stored before the search index existed (an older `.local/`, a
  // deployed table): indexed once. Idempotent, so a start interrupted before the marker redoes it.
  if (applied < 3) await backfillSearchIndex({ log: (line) => log.info(line) });
  // Ticket counters (the tab badges) of tickets stored before they existed: counted once, at a
  // start, before any handler serves.
  if (applied < 4) for (const c of await listCompanies()) await rebuildTicketCounters(c.id);
  // Name tokens as phrases (a full name typed in order finds its contacts at once).
  if (applied < 5) for (const c of await listCompanies()) await reindexContactNames(c.id, (line) => log.info(line));
  // Contacts' ticket lists (the search reads many contacts' tickets at once).
  if (applied < 6) for (const c of await listCompanies()) await buildContactTicketLists(c.id, (line) => log.info(line));
  // The contact's shown fields on each ticket (a page of tickets reads no contacts).
  if (applied < 7) for (const c of await listCompanies()) await fillTicketContactViews(c.id, (line) => log.info(line));
  // The dashboard's aggregates (decision 60) of tickets stored before them: rebuilt once.
  if (applied < 8) for (const c of await listCompanies()) await rebuildDashboardStats(c.id);
  // Billing (decision 61): companies written before it get their due-index key, so the invoice job sees them.
  if (applied < 9) log.info(`due index: ${await backfillDueIndex()} companies keyed`);
  // The platform's own company (the super user's) is not billed: no invoices, never blocked (decision 61).
  if (applied < 10 && !(await getItem<CompanyItem>(keys.company(companyId)))?.billingExempt) await updateCompany(companyId, { billingExempt: true });
  if (applied < SEED_VERSION) await putItem({ ...seedMarker, entity: 'seed', version: SEED_VERSION, companyId });
  return { companyId, adminUserId, demoConnectionId };
}
