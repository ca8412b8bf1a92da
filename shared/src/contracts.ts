import type { QueueRef, TicketFields } from './entities.js';
import type { InboundMediaError, MediaType } from './whatsapp.js';

/**
 * The API's answers for tickets and messages: produced by the functions (`toApiTicket`,
 * `toApiMessage`, typed against these) and read by the console, so neither side keeps its own copy.
 */

export interface TagRef {
  id: number;
  name: string;
  color: string;
  type?: 'ticket' | 'contact';
}

/** A ticket as the API answers it: its own fields and the names the screens show. */
export interface ApiTicket extends TicketFields {
  tags?: TagRef[];
  contact: {
    id: number;
    name: string;
    number: string;
    email?: string | null;
    profilePicUrl?: string | null;
    isGroup?: boolean;
    tagIds: number[];
    tags?: TagRef[];
  } | null;
  user: { id: number; name: string } | null;
  queue: QueueRef | null;
  whatsapp: { id: number; name: string } | null;
}

/** One lane of the kanban board: its cards (ids into `tickets`), and where its next page starts. */
export interface KanbanLane {
  /** The kanban tag's id; 0 is 'Em aberto' (no kanban tag). */
  id: number;
  ticketIds: number[];
  hasMore: boolean;
  cursor: string | null;
}

/** What a kanban card shows and needs to find its lane (spec 002 §3 "Ticket (as used by kanban)"). */
export type ApiKanbanCard = Pick<ApiTicket, 'id' | 'uuid' | 'status' | 'queueId' | 'userId' | 'contactId' | 'updatedAt' | 'lastMessage' | 'unreadMessages' | 'tagIds'> & {
  contact: Pick<NonNullable<ApiTicket['contact']>, 'id' | 'name' | 'number' | 'tagIds'> | null;
};

/** `GET /ticket/kanban`: the spec's `tickets` (as cards), and the lanes they were read for. */
export interface ApiKanbanBoard {
  tickets: ApiKanbanCard[];
  lanes: KanbanLane[];
}

export type MessageMediaType = MediaType;

/**
 * A message's own fields, as stored and as answered: the stored item (functions' `MessageItem`) adds
 * its keys, media object and reactions' senders; the answer (`ApiMessage`) adds the media's URL and
 * names and the sending agent.
 */
export interface MessageFields {
  /** The WhatsApp message id (ours for messages we send). */
  id: string;
  seq: number;
  companyId: number;
  ticketId: number;
  contactId: number;
  whatsappId: number;
  body: string;
  fromMe: boolean;
  read: boolean;
  ack: number;
  mediaType: MessageMediaType | null;
  /** In groups: who wrote it. */
  participant: { number?: string; lid?: string; name?: string } | null;
  isDeleted: boolean;
  isEdited: boolean;
  /** Set when sending failed (ERR_SENDING_WAPP_MSG); cleared on a successful retry. */
  error: string | null;
  userId: number | null;
  /** Sent by the queue bot (greeting, menu, options, form questions, out-of-hours answer). */
  isBot?: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A message as the API answers it. A deleted one shows only that it was deleted (server-behaviour §7). */
export interface ApiMessage extends MessageFields {
  mediaUrl: string | null;
  mediaName: string | null;
  fileName: string | null;
  mimetype: string | null;
  ptt: boolean;
  /** An inbound file that was not received (too large, or not obtainable): the bubble says so. */
  mediaError?: InboundMediaError | null;
  quotedMsg: { id: string; body: string; fromMe: boolean; mediaType?: MediaType | null } | null;
  /** Ours (`fromMe`) and one per contact (`sender`: number or LID). */
  reactions: { emoji: string; fromMe: boolean; sender?: string }[];
  /** The agent who sent it, when one did. */
  user: { id: number; name: string } | null;
}

/** A contact's own fields, as stored (functions' `ContactItem` adds its keys) and as answered. */
export interface ContactFields {
  id: number;
  companyId: number;
  name: string;
  number: string;
  lid: string | null;
  email: string;
  isGroup: boolean;
  profilePicUrl: string | null;
  extraInfo: { name: string; value: string }[];
  /** Denormalised contact tags (kept with the tag links). */
  tagIds: number[];
  userId: number | null;
  disableBot: boolean;
  /** The connection it first wrote through. */
  whatsappId: number | null;
  createdAt: string;
  updatedAt: string;
}

/** A contact as the contacts API and its events answer it: with its tags' names and colours. */
export interface ApiContact extends ContactFields {
  tags?: TagRef[];
}

/** A contact with its tags always listed (the contacts pages and dialogs). */
export type ApiContactFull = ApiContact & { tags: TagRef[] };

/** A tag's own fields, as stored (`TagItem` adds its keys and delete flag) and as answered. */
export interface TagFields {
  id: number;
  companyId: number;
  name: string;
  color: string;
  type: 'ticket' | 'contact';
  kanban: 0 | 1;
  userId: number | null;
  ticketsCount: number;
  contactsCount: number;
  /** Goes up with every change of the counts: a late `counts` event never replaces newer ones. */
  countsVersion?: number;
  createdAt: string;
  updatedAt: string;
}

export interface ApiTag extends TagFields {
  countsVersion: number;
}

/** The counts of one tag as the `counts` event carries them. */
export type TagCounts = Pick<ApiTag, 'id' | 'ticketsCount' | 'contactsCount' | 'countsVersion'>;

/** A quick reply's own fields, as stored (`QuickMessageItem` adds its keys and file key). */
export interface QuickMessageFields {
  id: number;
  companyId: number;
  userId: number;
  shortcode: string;
  message: string;
  geral: boolean;
  status: boolean;
  isMedia: boolean;
  /** The stored file's name (spaces as underscores) and the name the user gave it. */
  mediaPath: string | null;
  mediaName: string | null;
  mediaType: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A quick reply as `GET /quick-messages` answers it: the file as a short-lived URL. */
export interface ApiQuickMessage extends QuickMessageFields {
  mediaUrl: string | null;
}

/** What one contacts import did (`POST /contacts/importList`, a slice of `POST /contacts/import`). */
export interface ImportResult {
  created: number;
  updated: number;
  unchanged: number;
  refused: { row: number; number: string; reason: string }[];
  contacts: { row: number; contactId: number; number: string; status: 'created' | 'updated' | 'unchanged' }[];
}

/** A contact list (spec 002 §4): `contactsCount` is kept with its items. */
export interface ApiContactList {
  id: number;
  companyId: number;
  name: string;
  contactsCount: number;
  /** The latest spreadsheet import into the list (running or its report), absent before the first. */
  import?: ContactListImport;
  createdAt: string;
  updatedAt: string;
}

/**
 * A campaign as the API answers it (spec 002 §3; issue 20 §3). `counts` move with each shipment;
 * `error` says why a campaign stopped on its own (shown in the table, cleared by a restart).
 */
export interface ApiCampaign {
  id: number;
  companyId: number;
  name: string;
  message1: string;
  message2: string;
  message3: string;
  message4: string;
  message5: string;
  confirmationMessage1: string;
  confirmationMessage2: string;
  confirmationMessage3: string;
  confirmationMessage4: string;
  confirmationMessage5: string;
  status: import('./schemas/campaigns.js').CampaignStatus;
  confirmation: boolean;
  /** ISO instant; the console shows and edits it on the company's wall clock. */
  scheduledAt: string | null;
  completedAt: string | null;
  whatsappId: number | null;
  contactListId: number | null;
  /** A tag whose contacts are the recipients; null is the dialog's "Nenhuma". */
  tagListId: number | null;
  fileListId: number | null;
  mediaPath: string | null;
  mediaName: string | null;
  /** A short-lived URL of the campaign media, when there is one. */
  mediaUrl: string | null;
  contactList: { id: number; name: string; contactsCount: number } | null;
  whatsapp: { id: number; name: string; status: string } | null;
  counts: CampaignCounts;
  error: { code: import('./schemas/campaigns.js').CampaignErrorCode; at: string } | null;
  createdAt: string;
  updatedAt: string;
}

/** The report's counts (spec 002 §2): recipients planned, and where their shipments stand. */
export interface CampaignCounts {
  recipients: number;
  delivered: number;
  confirmationRequested: number;
  confirmed: number;
  failed: number;
}

/** Why an imported row was not added (the console translates each). */
export type ContactListImportReason = 'nameTooShort' | 'nameTooLong' | 'numberInvalid' | 'emailInvalid' | 'duplicated' | 'duplicatedInFile';

/**
 * A spreadsheet import (`POST /contact-lists/{id}/upload`, issue 20 §2): done in the background,
 * its progress and report kept on the list and announced with the list's live updates.
 */
export interface ContactListImport {
  id: string;
  status: 'running' | 'done' | 'failed';
  fileName: string;
  /** Data rows in the file. */
  total: number;
  /** Rows handled so far (imported + duplicated + invalid when done). */
  processed: number;
  imported: number;
  duplicated: number;
  invalid: number;
  /** Imported numbers found on WhatsApp / not found (the rest are unknown: no connected default connection). */
  whatsappValid: number;
  whatsappInvalid: number;
  /** The first rejected rows (spreadsheet row numbers, the header being row 1). */
  errors: { row: number; reason: ContactListImportReason }[];
  startedAt: string;
  finishedAt?: string;
}

/** A contact list's item; `isWhatsappValid` null until the number is checked on WhatsApp. */
export interface ApiContactListItem {
  id: number;
  companyId: number;
  contactListId: number;
  name: string;
  number: string;
  email: string;
  isWhatsappValid: boolean | null;
  createdAt: string;
  updatedAt: string;
}

/** A queue integration as the API answers it (`jsonContent`: the service account with its key masked). */
export interface ApiQueueIntegration {
  id: number;
  companyId: number;
  type: 'dialogflow' | 'n8n' | 'webhook' | 'typebot';
  name: string;
  projectName: string | null;
  jsonContent: string | null;
  language: 'pt-BR' | 'en' | 'es' | null;
  urlN8N: string | null;
  typebotSlug: string | null;
  typebotExpires: number;
  typebotDelayMessage: number;
  typebotKeywordFinish: string | null;
  typebotKeywordRestart: string | null;
  typebotRestartMessage: string | null;
  typebotUnknownMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An AI prompt as the API answers it (`apiKey`, `voiceKey`: masked, `sk-…a1b2`). */
export interface ApiPrompt {
  id: number;
  companyId: number;
  name: string;
  prompt: string;
  queueId: number;
  queue: { id: number; name: string; color: string } | null;
  maxTokens: number;
  temperature: number;
  maxMessages: number;
  apiKey: string;
  voice: string;
  voiceKey: string | null;
  voiceRegion: string | null;
  baseUrl: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * One option of a file list (spec 002 §3: name, path, mediaType, id): `path` is the stored file's
 * name (spaces as underscores), `mediaName` the name it was uploaded with, `mediaType` its checked
 * content type; all null until a file is uploaded. The file as a short-lived URL, like quick replies.
 */
export interface ApiFileListOption {
  id: number;
  name: string;
  path: string | null;
  mediaName: string | null;
  mediaType: string | null;
  mediaUrl: string | null;
}

/** A file list (spec 002 §3): a message and its options, each with (at most) one file. */
export interface ApiFileList {
  id: number;
  companyId: number;
  name: string;
  message: string;
  options: ApiFileListOption[];
  createdAt: string;
  updatedAt: string;
}

/**
 * An announcement (spec 002 §3): platform-wide, published by the super user (decision 58).
 * `mediaPath` is the stored image's name, `mediaName` the name it was uploaded with; the image
 * itself as a short-lived URL (`mediaUrl`), null without one.
 */
export interface ApiAnnouncement {
  id: number;
  title: string;
  text: string;
  priority: 1 | 2 | 3;
  status: boolean;
  mediaPath: string | null;
  mediaName: string | null;
  mediaType: string | null;
  mediaUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A help video (spec 003 §3): platform-wide, managed by the super user; `video` is a YouTube id. */
export interface ApiHelp {
  id: number;
  title: string;
  video: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}

/** A member of an internal chat (spec 002 §3): their unread count is kept with the chat (decision 57). */
export interface ApiChatUser {
  userId: number;
  unreads: number;
  user: { id: number; name: string; photoUrl: string | null };
}

/** An internal chat (spec 002 §3). */
export interface ApiChat {
  id: number;
  uuid: string;
  title: string;
  isGroup: boolean;
  ownerId: number;
  lastMessage: string;
  createdAt: string;
  updatedAt: string;
  users: ApiChatUser[];
}

/** A message of an internal chat (spec 002 §3); the file as a short-lived URL. */
export interface ApiChatMessage {
  id: number;
  chatId: number;
  senderId: number;
  sender: { id: number; name: string };
  message: string;
  mediaUrl: string | null;
  mediaType: 'image' | 'audio' | 'video' | 'other' | null;
  mediaName: string | null;
  createdAt: string;
}

/** An invoice as the API answers it (spec 003 §3: id, detail, value, dueDate, status; issue 22 §2). */
export interface ApiInvoice {
  id: number;
  companyId: number;
  /** The plan's name when the invoice was opened. */
  detail: string;
  /** BRL, two decimals. */
  value: number;
  dueDate: string;
  /** `open` or `paid` (superseded ones are not listed). */
  status: 'open' | 'paid';
  paidAt: string | null;
  /** The company's name (the super user's table). */
  companyName?: string;
  createdAt: string;
  updatedAt: string;
}

/** `POST /subscription`'s answer (spec 003 §7): the Pix copy-and-paste code and the amount. */
export interface PixCheckout {
  qrcode: { qrcode: string; encodedImage?: string };
  valor: { original: number };
  invoiceId: number;
  chargeId: string;
}

/** The super user's payment provider setting as answered (masked). */
export interface ApiBillingSetting {
  provider: 'asaas' | 'sandbox';
  /** The Asaas API key, masked; '' when none. */
  value: string;
  webhookToken: string;
  /** Whether the local sandbox provider is available (local runs). */
  sandboxAvailable: boolean;
}
