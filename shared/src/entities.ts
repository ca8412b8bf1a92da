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
  document?: string;
  addressZipCode?: string;
  addressStreet?: string;
  addressState?: string;
  addressCity?: string;
  addressDistrict?: string;
  settings?: SettingItem[];
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
  companyId: number;
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
