import type { Profile, PlanFlag, Recurrence } from '@balcao/shared';

/** Stored item shapes (docs/data-model.md). API shapes are in shared/src/entities.ts. */
export interface BaseItem {
  PK: string;
  SK: string;
  entity: string;
  createdAt: string;
  updatedAt: string;
}

export interface PlanItem extends BaseItem, Record<PlanFlag, boolean> {
  id: number;
  name: string;
  users: number;
  connections: number;
  queues: number;
  campaigns: number;
  schedules: number;
  value: number;
}

export interface CompanyItem extends BaseItem {
  id: number;
  name: string;
  email: string;
  phone: string;
  planId: number;
  status: boolean;
  campaignsEnabled: boolean;
  dueDate: string | null;
  recurrence: Recurrence;
  trialExpiration: string | null;
  document?: string;
  addressZipCode?: string;
  addressStreet?: string;
  addressState?: string;
  addressCity?: string;
  addressDistrict?: string;
  /** Contacts made from then on have whole ticket lists (search-index.ts `ContactTicketList`). */
  ticketListsSince?: string;
}

export interface UserItem extends BaseItem {
  id: number;
  companyId: number;
  sub: string;
  name: string;
  email: string;
  profile: Profile;
  super: boolean;
  queueIds: number[];
  whatsappId: number | null;
  allTicket: 'enabled' | 'desabled';
  sendGreetingAccepted: boolean;
  photoKey: string | null;
  online: boolean;
  lastSeenAt?: string;
  session?: { id: string; authTime: number; startedAt: string };
}

export interface QueueItem extends BaseItem {
  id: number;
  companyId: number;
  name: string;
  color: string;
  greetingMessage: string;
  outOfHoursMessage: string;
  orderQueue: number | null;
  integrationId: number | null;
  promptId: number | null;
}

export interface SettingRecord extends BaseItem {
  companyId: number;
  key: string;
  value: string;
}

export interface UsageItem {
  PK: string;
  SK: string;
  users?: number;
  queues?: number;
  connections?: number;
  campaigns?: number;
  schedules?: number;
}
