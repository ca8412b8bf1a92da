import type { Profile, PlanFlag } from './profiles.js';
import type { Recurrence } from './subscription.js';

/** Shapes the API answers (the spec's field names). */
export interface QueueRef {
  id: number;
  name: string;
  color: string;
}

export interface Plan extends Record<PlanFlag, boolean> {
  id: number;
  name: string;
  users: number;
  connections: number;
  queues: number;
  campaigns: number;
  schedules: number;
  value: number;
  createdAt: string;
  updatedAt: string;
}

export interface SettingItem {
  key: string;
  value: string;
  companyId?: number;
}

export interface Company {
  id: number;
  name: string;
  email: string;
  phone: string;
  planId: number;
  plan?: Plan;
  status: boolean;
  campaignsEnabled: boolean;
  dueDate: string | null;
  recurrence: Recurrence;
  trialExpiration: string | null;
  /** Left out of billing (decision 61): the platform's own company; set by the seed or the super user. */
  billingExempt?: boolean;
  document?: string;
  addressZipCode?: string;
  addressStreet?: string;
  addressState?: string;
  addressCity?: string;
  addressDistrict?: string;
  settings?: SettingItem[];
  /** The company's weekly business hours (setting `scheduleType` `company`; server-behaviour §5). */
  schedules: import('./business-hours.js').ScheduleEntry[];
  createdAt: string;
  updatedAt: string;
}

export interface User {
  id: number;
  name: string;
  email: string;
  profile: Profile;
  companyId: number;
  super: boolean;
  online: boolean;
  photoUrl: string | null;
  whatsappId: number | null;
  queues: QueueRef[];
  allTicket: 'enabled' | 'desabled';
  sendGreetingAccepted: boolean;
  contacts?: number;
  company?: Pick<Company, 'id' | 'name' | 'dueDate' | 'status' | 'settings' | 'trialExpiration' | 'email'> & {
    plan?: Plan;
    /** The company's own campaigns switch (with the plan's `useCampaigns`, the campaigns gate). */
    campaignsEnabled?: boolean;
  };
  createdAt: string;
  updatedAt: string;
}

export interface Queue extends QueueRef {
  greetingMessage: string;
  outOfHoursMessage: string;
  orderQueue: number | null;
  integrationId: number | null;
  promptId: number | null;
  type: import('./schemas/platform.js').QueueType;
  nextQueueId: number | null;
  nextQueueInvalidFormId: number | null;
  schedules: import('./business-hours.js').ScheduleEntry[];
  companyId: number;
  createdAt: string;
  updatedAt: string;
}

/** A queue option as the API answers it (spec 003 §4). */
export interface QueueOption {
  id: number;
  queueId: number;
  parentId: number | null;
  title: string;
  message: string;
  option: string;
  fieldName: string | null;
  isValidationField: boolean;
  validation: import('./schemas/platform.js').FormValidation | null;
  transferToQueueId: number | null;
  /** How many options are under it (the editor shows whether it is a leaf). */
  children: number;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  hasMore: boolean;
  count?: number;
  items: T[];
}

export interface Connection {
  id: number;
  name: string;
  status: import('./whatsapp.js').SessionStatus;
  qrcode: string;
  retries: number;
  isDefault: boolean;
  number: string;
  /** Whether an API token is set (the token itself is stored hashed and never answered). */
  hasToken: boolean;
  token: string;
  provider: import('./whatsapp.js').Provider;
  greetingMessage: string;
  complationMessage: string;
  outOfHoursMessage: string;
  ratingMessage: string;
  expiresInactiveMessage: string;
  expiresTicket: number;
  timeToTransfer: number;
  transferQueueId: number | null;
  timeUseBotQueues: number;
  maxUseBotQueues: number;
  sendIdQueue: number | null;
  timeSendQueue: number;
  promptId: number | null;
  integrationId: number | null;
  queueIds: number[];
  queues: QueueRef[];
  companyId: number;
  createdAt: string;
  updatedAt: string;
}

export type TicketStatus = 'pending' | 'open' | 'closed';

/**
 * A ticket's own fields as the API answers them: the stored item (functions' `TicketItem`) adds
 * its keys and write version, the answer (`toApiTicket`) adds the names of its contact, agent,
 * queue, connection and tags.
 */
export interface TicketFields {
  id: number;
  uuid: string;
  companyId: number;
  status: TicketStatus;
  userId: number | null;
  queueId: number | null;
  contactId: number;
  whatsappId: number;
  unreadMessages: number;
  isGroup: boolean;
  lastMessage: string;
  /** Sequence of the last stored message: the messages' sort order within the ticket. */
  lastSeq: number;
  /** Whether the last stored message was ours (the inactivity close waits on our last word). */
  lastFromMe?: boolean;
  chatbot: boolean;
  useIntegration: boolean;
  integrationId: number | null;
  promptId: number | null;
  tagIds: number[];
  queuedAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Close with rating (server-behaviour §6): a 1-3 reply before this instant records the rating. */
  awaitingRatingUntil?: string | null;
  rating?: number | null;
  ratingAt?: string | null;
  /** The agent the rating is for (the ticket's agent at close). */
  ratingUserId?: number | null;
  createdAt: string;
  updatedAt: string;
}
