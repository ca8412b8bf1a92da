import type {
  ApiAnnouncement,
  ApiCampaign,
  ApiContactList,
  ApiContactListItem,
  ApiFileList,
  ApiFileListOption,
  CampaignSettings,
  ApiPrompt,
  ApiQueueIntegration,
  Company,
  Connection,
  ContactFields,
  FormValidation,
  ListImportRow,
  InboundMediaError,
  MediaType,
  MessageFields,
  PlanFlag,
  Profile,
  QueueType,
  QuickMessageFields,
  ScheduleEntry,
  ScheduleErrorCode,
  ScheduleReasonParams,
  ScheduleStatus,
  StoredMedia,
  TagFields,
  TicketFields,
  WaKey,
} from '@balcao/shared';

/**
 * The table's item shapes (docs/data-model.md), beside their keys (keys.ts). API shapes are in
 * shared/src/entities.ts. Pure helpers that belong to an item's shape live here too.
 */

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

/** A help video (platform-wide, `HELP` partition): `video` is the YouTube id. */
export interface HelpItem extends BaseItem {
  id: number;
  title: string;
  video: string;
  description: string;
}

/** A company as stored: its API fields without the plan and settings the answers join in. */
export interface CompanyItem extends BaseItem, Omit<Company, 'plan' | 'settings'> {
  /** Contacts made from then on have whole ticket lists (search-index.ts `ContactTicketList`). */
  ticketListsSince?: string;
  /** Billing (decision 61): the due date of the last invoice opened; while blocked for being past due, when and which sessions were stopped. */
  invoicedDueDate?: string | null;
  blockedAt?: string;
  stoppedConnectionIds?: number[];
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
  /** Absent on queues made before issue 18: TEXT, no FORM targets, the default schedule. */
  type?: QueueType;
  nextQueueId?: number | null;
  nextQueueInvalidFormId?: number | null;
  schedules?: ScheduleEntry[];
}

export interface QueueOptionItem extends BaseItem {
  entity: 'queueOption';
  id: number;
  companyId: number;
  queueId: number;
  parentId: number | null;
  /** 1 at the root (the depth limit is checked from the parent's). */
  depth: number;
  title: string;
  message: string;
  option: string;
  fieldName: string | null;
  isValidationField: boolean;
  validation: FormValidation | null;
  transferToQueueId: number | null;
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

export interface ContactItem extends ContactFields {
  PK: string;
  SK: string;
  entity: 'contact';
  /** A campaign awaits this contact's reply to its confirmation message (campaign-dispatch.ts). */
  campaignConfirm?: { campaignId: number; connectionId: number };
  GSI1PK: string;
  GSI1SK: string;
  /** Contacts of a specific attendant (sparse: only with `userId`). */
  GSI3PK?: string;
  GSI3SK?: string;
}

/**
 * What a ticket list shows of a ticket's contact, kept on the ticket (`contactView`) so a page of
 * tickets needs no read of their contacts (docs/decisions.md 31). The contact stays the truth: a
 * change of these fields is written to its tickets (`refreshContactViews`), and a ticket made or
 * reopened checks its copy against the contact once stored (`settleContactView`).
 */
export interface ContactView {
  name: string;
  number: string;
  email: string;
  profilePicUrl: string | null;
  isGroup: boolean;
  tagIds: number[];
}

export type ContactViewSource = Pick<ContactItem, 'name' | 'number' | 'email' | 'profilePicUrl' | 'isGroup'> & { tagIds?: number[] };

export const contactViewOf = (c: ContactViewSource): ContactView => ({
  name: c.name,
  number: c.number,
  email: c.email ?? '',
  profilePicUrl: c.profilePicUrl ?? null,
  isGroup: c.isGroup === true,
  tagIds: c.tagIds ?? [],
});

export const sameContactView = (a: ContactView | undefined, b: ContactView | undefined) =>
  !!a &&
  !!b &&
  a.name === b.name &&
  a.number === b.number &&
  a.email === b.email &&
  a.profilePicUrl === b.profilePicUrl &&
  a.isGroup === b.isGroup &&
  a.tagIds.length === b.tagIds.length &&
  a.tagIds.every((x, i) => x === b.tagIds[i]);

/** The stored ticket: its public fields (shared `TicketFields`) with its keys and write version. */
export interface TicketItem extends TicketFields {
  PK: string;
  SK: string;
  entity: 'ticket';
  GSI1PK: string;
  GSI1SK: string;
  GSI2PK: string;
  GSI2SK: string;
  GSI3PK: string;
  GSI3SK: string;
  /** Ticket timer index (sparse; `ticketTimerKeys`). */
  GSI4PK?: string;
  GSI4SK?: string;
  /**
   * Write version: every write of the whole item bumps it and is conditional on the version read
   * (`ticketGuard`), so a message stored at the same time never overwrites a status change.
   */
  wv?: number;
  /** The contact's fields the lists show (services/contact-view.ts); tickets made before it have none until migrated. */
  contactView?: ContactView;
  /** Where the queue bot stands on this ticket (services/bot.ts); never answered by the API. */
  bot?: BotState;
  /** The running integration's or prompt's memory (while `useIntegration`). */
  automation?: AutomationState;
  /**
   * When an agent first answered the customer in this cycle (the dashboard's first-response time);
   * reset with `queuedAt` on a reopen.
   */
  firstReplyAt?: string | null;
  /** The cycle was started by an agent (a new ticket from the console): its messages answer nothing. */
  agentStarted?: boolean;
}

/** The queue bot's state on a ticket (server-behaviour §4-§5). */
export interface BotState {
  /** The last customer message the bot answered (id and place in the ticket): a redelivery of it, or an older one, does nothing. */
  handled?: string;
  handledSeq?: number;
  /** An agent wrote in the ticket: no automation answers it any more (this cycle). */
  stopped?: boolean;
  /**
   * `menu`: the queue menu is showing; `options`: a queue's tree; `form`: a FORM queue's fields;
   * `capped`: `maxUseBotQueues` menus went out (again after `timeUseBotQueues`); `done`: the bot is over.
   */
  stage?: 'menu' | 'options' | 'form' | 'capped' | 'done';
  /** Times the queue menu went out on this ticket, and when last (`maxUseBotQueues`, `timeUseBotQueues`). */
  menus?: number;
  menuAt?: string;
  /** Invalid replies in a row at this step. */
  invalid?: number;
  /** The option whose children are showing (`null`: the queue's root). */
  node?: number | null;
  /** FORM: the field being asked, and the invalid answers so far. */
  field?: number;
  formInvalid?: number;
  /** The connection greeting of a connection without queues went out. */
  greeted?: boolean;
  /** The out-of-hours period already answered (`outOfHoursPeriod`). */
  outOfHours?: string;
  /** The customer message handed to the ticket's integration or prompt (a rerun hands it over again). */
  handedOver?: string;
  /** An integration or prompt ended or failed on this ticket: the bot does not start one again. */
  automationOff?: boolean;
}

/**
 * The chat's current ticket on a connection (`currentMarker`): which ticket a new message joins,
 * and when it closed (the 2-hour reopen and the rating wait read it).
 */
export interface CurrentTicketMarker {
  ticketId: number;
  status: TicketFields['status'];
  closedAt?: string;
}

/** Every field of a ticket the API answers (`TicketFields`): a list page reads only these. */
export const TICKET_FIELDS = [
  'id', 'uuid', 'companyId', 'status', 'userId', 'queueId', 'contactId', 'whatsappId', 'unreadMessages', 'isGroup', 'lastMessage', 'lastSeq',
  'lastFromMe', 'chatbot', 'useIntegration', 'integrationId', 'promptId', 'tagIds', 'queuedAt', 'startedAt', 'finishedAt',
  'awaitingRatingUntil', 'rating', 'ratingAt', 'ratingUserId', 'createdAt', 'updatedAt',
] as const satisfies readonly (keyof TicketFields)[];

// A field added to TicketFields and not listed above fails to compile here.
const everyTicketField: Exclude<keyof TicketFields, (typeof TICKET_FIELDS)[number]> extends never ? true : never = true;

void everyTicketField;

/**
 * The condition of a whole-item write of `current`'s next version: the item must still be the one
 * read (same message sequence and write version). Items written before `wv` existed have none.
 */
export function ticketGuard(current: Pick<TicketItem, 'lastSeq' | 'wv'>): { condition: string; values: Record<string, unknown>; wv: number } {
  if (current.wv === undefined) {
    return { condition: 'attribute_exists(PK) AND lastSeq = :gseq AND attribute_not_exists(wv)', values: { ':gseq': current.lastSeq }, wv: 1 };
  }
  return { condition: 'attribute_exists(PK) AND lastSeq = :gseq AND wv = :gwv', values: { ':gseq': current.lastSeq, ':gwv': current.wv }, wv: current.wv + 1 };
}

/** A stored message: its fields as the API also has them (shared `MessageFields`), its media and keys. */
export interface MessageItem extends MessageFields {
  PK: string;
  SK: string;
  entity: 'message';
  media: StoredMedia | null;
  /** An inbound file the session host did not store (too large, unobtainable); absent on older items. */
  mediaError?: InboundMediaError | null;
  quotedMsg: QuotedSnapshot | null;
  /** One per sender: ours (`fromMe`, no sender) and each contact's (`sender` = number or LID). */
  reactions: MessageReaction[];
  /** The WhatsApp key the session saw (inbound messages): replies, reactions and receipts are built from it. */
  waKey?: WaKey | null;
  /** Our sends: the command id of the latest attempt; an earlier attempt's recovery check stands down. */
  sendCommandId?: string;
}

export interface MessageReaction {
  emoji: string;
  fromMe: boolean;
  sender?: string;
  /** Older items named the sender `from`. */
  from?: string;
}

/** A WhatsApp connection: the API's fields (shared `Connection`) but its token, stored hashed. */
export interface ConnectionItem extends Omit<Connection, 'hasToken' | 'token' | 'queues'> {
  PK: string;
  SK: string;
  entity: 'connection';
  GSI1PK: string;
  GSI1SK: string;
  /** The session-host shard that holds its session. */
  shard: number;
  tokenHash: string | null;
}

/**
 * Tags (spec 001 §3, §7). A tag lives in its own partition together with its links:
 * `C#<cid>#TAG#<id>` / `TAG` is the tag, `TK#<ticketId>` and `CT#<contactId>` are the tickets and
 * contacts carrying it. Tickets and contacts keep the denormalised `tagIds` the ticket lists filter
 * on. A link, the target's `tagIds` and the tag's count change in ONE transaction, conditional on
 * the link's previous state and on the target's version, so `ticketsCount`/`contactsCount` stay
 * exact however many agents tag at once.
 */
export interface TagItem extends TagFields {
  PK: string;
  SK: string;
  entity: 'tag';
  GSI1PK: string;
  GSI1SK: string;
  /** Set while a delete strips the tag from its tickets and contacts: no new links meanwhile. */
  deleting?: boolean;
}

/**
 * Quick replies (spec 001 §3, §7). A reply belongs to the user who wrote it; `geral` ones are
 * offered to the whole company. Shortcodes are unique per company and owner (a marker item written
 * with the reply). Attachments live in S3 under the company's prefix and are answered as
 * short-lived URLs.
 */
export interface QuickMessageItem extends QuickMessageFields {
  PK: string;
  SK: string;
  entity: 'quickMessage';
  GSI1PK: string;
  GSI1SK: string;
  /** S3 key of the attachment (never answered). */
  mediaKey: string | null;
}

/**
 * An announcement (issue 21 §3, decision 58): the platform's, in the `ANNOUNCEMENTS` partition; in
 * the sparse active index (GSI1) while `status` is true.
 */
export interface AnnouncementItem extends Omit<ApiAnnouncement, 'mediaUrl'> {
  PK: string;
  SK: string;
  entity: 'announcement';
  GSI1PK?: string;
  GSI1SK?: string;
  /** The super user who created it. */
  userId: number;
  /** S3 key of the image (never answered). */
  mediaKey: string | null;
}

/**
 * Scheduled messages (spec 001 §3-§7, server-behaviour §8, DESIGN §7). A schedule waits in a
 * sparse due index (GSI4, `SCHDUE#<shard>`, sorted by the next instant to look at it) while it is
 * PENDENTE or AGENDADA; the sweeper moves due ones to AGENDADA and enqueues a job; the job sends
 * through the outbound path, in the contact's ticket like an agent's message, and ends the
 * schedule ENVIADA or ERRO (leaving the index). Every step is a conditional write, so repeated
 * sweeps and redelivered jobs change nothing twice.
 */
export interface ScheduleItem {
  PK: string;
  SK: string;
  entity: 'schedule';
  GSI1PK: string;
  GSI1SK: string;
  GSI4PK?: string;
  GSI4SK?: string;
  id: number;
  companyId: number;
  userId: number;
  contactId: number;
  /** Denormalised for the search; answers carry the contact as it is now. */
  contactName: string;
  contactNumber: string;
  body: string;
  sendAt: string;
  sentAt: string | null;
  status: ScheduleStatus;
  reason: string | null;
  /** The reason as a code the console translates (older items have only `reason`). */
  reasonCode?: ScheduleErrorCode | null;
  reasonParams?: ScheduleReasonParams | null;
  whatsappId: number | null;
  ticketId: number | null;
  messageId: string | null;
  /** Set when a job claimed the send (one sender only). */
  sendingAt: string | null;
  /** Hand-offs to the dispatcher without an outcome (a lost job is handed again, a few times). */
  handoffs: number;
  mediaKey: string | null;
  mediaPath: string | null;
  mediaName: string | null;
  mediaType: string | null;
  mediaSize: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface TicketNoteItem {
  PK: string;
  SK: string;
  entity: 'ticketNote';
  GSI1PK: string;
  GSI1SK: string;
  id: number;
  companyId: number;
  note: string;
  userId: number;
  ticketId: number;
  contactId: number;
  createdAt: string;
  updatedAt: string;
}

/** A socket as stored: who it is, which session it was opened with, and its rooms. */
export interface WsConnectionItem {
  PK: string;
  SK: string;
  connectionId: string;
  companyId: number;
  userId: number;
  sessionId: string;
  rooms: string[];
  connectedAt: string;
  ttl: number;
}

export interface QuotedSnapshot {
  id: string;
  body: string;
  fromMe: boolean;
  mediaType: MediaType | null;
}

/**
 * A queue integration (spec 003 §4, server-behaviour §9). The Dialogflow service account is kept
 * sealed (core/secrets.ts) with the mask the API shows, so lists never open a secret.
 */
export interface QueueIntegrationItem extends Omit<ApiQueueIntegration, 'jsonContent'> {
  PK: string;
  SK: string;
  entity: 'queueIntegration';
  jsonContentSealed: string | null;
  jsonContentMask: string | null;
}

/** An AI prompt (spec 002 §4, server-behaviour §9); keys sealed like an integration's. */
export interface PromptItem extends Omit<ApiPrompt, 'apiKey' | 'voiceKey' | 'queue'> {
  PK: string;
  SK: string;
  entity: 'prompt';
  apiKeySealed: string;
  apiKeyMask: string;
  voiceKeySealed: string | null;
  voiceKeyMask: string | null;
}

/**
 * What a ticket's integration or prompt remembers between customer messages (services/automation.ts).
 * `handled`/`handledSeq` name the last customer message answered; `outbox` holds the answer decided
 * for it until every part is sent (a rerun sends what is left, under the same derived ids).
 */
export interface AutomationState {
  handled?: string;
  handledSeq?: number;
  /** Typebot: the session and when it last moved (expiry), and the choices on show. */
  sessionId?: string | null;
  lastAt?: string;
  choices?: string[] | null;
  /** Typebot: the input block waiting for the customer (the same one again means the reply was refused). */
  inputId?: string | null;
  /** The customer message whose calls are failing, and how many times so far (the fall back comes after the last). */
  failing?: string;
  failures?: number;
  /** Where this run of the automation began (the seq of the message that started it): older jobs are not its. */
  since?: number;
  outbox?: AutomationReply[];
  /** Milliseconds between two parts of `outbox` (Typebot's `typebotDelayMessage`). */
  pace?: number;
  /** What the answer does to the ticket once `outbox` is sent (services/automation TicketChange). */
  after?: { queueId?: number; userId?: number; stop?: boolean; close?: boolean };
}
export type AutomationReply = { kind: 'text'; body: string } | { kind: 'voice'; key: string; size: number; mimetype: string };

/** A contact list (issue 20 §2); `contactsCount` moves with each item in the same transaction. */
export interface ContactListRecord extends ApiContactList {
  PK: string;
  SK: string;
  entity: 'contactList';
  /** Where the running import stands (never answered): `import` is what people see of it. */
  importRun?: ContactListImportRun;
}

/** The import worker's place: chunk `nextChunk` of `chunks` is next; row i of chunk c gets id `firstId + c × CHUNK + i`. */
export interface ContactListImportRun {
  id: string;
  chunks: number;
  nextChunk: number;
  firstId: number;
  /** The default connection asked whether numbers are on WhatsApp (none connected: not checked). */
  connectionId: number | null;
}

/** One chunk of an import's checked rows (`contactListImportChunkKey`), with their WhatsApp answers once asked. */
export interface ContactListImportChunk {
  PK: string;
  SK: string;
  entity: 'contactListImportChunk';
  rows: ListImportRow[];
  /** Per row: on WhatsApp, not, or unknown (null); saved before any item is written, so a rerun asks nothing twice. */
  valid?: (boolean | null)[];
  ttl: number;
}

/** An item of a contact list, in its list's partition by folded name (`contactListItemSk`). */
export interface ContactListEntryItem extends ApiContactListItem {
  PK: string;
  SK: string;
  entity: 'contactListItem';
  /** Folded name, number and e-mail: what the list's search looks in. */
  search: string;
}

/** A file list's option as stored: its file's S3 key (`c/<cid>/file-lists/…`, never answered) and size. */
export interface FileListOptionItem extends Omit<ApiFileListOption, 'mediaUrl'> {
  mediaKey: string | null;
  mediaSize: number | null;
}

/** A file list (issue 20 §3) with its options inside; `lastOptionId` numbers the list's options. */
export interface FileListRecord extends Omit<ApiFileList, 'options'> {
  PK: string;
  SK: string;
  entity: 'fileList';
  /** Who created it. */
  userId: number;
  options: FileListOptionItem[];
  lastOptionId: number;
  /**
   * When a campaign first started with the list: from then on its files may be in sent messages,
   * which name the same objects, so an edit or a delete no longer removes them.
   */
  sentAt?: string;
}

/** A company's campaign settings (one item; defaults stand for what was never saved). */
export interface CampaignSettingsItem extends CampaignSettings {
  PK: string;
  SK: string;
  entity: 'campaignSettings';
  companyId: number;
  updatedAt: string;
}

/** A campaign (issue 20 §3): the API's fields, its media object and the dispatcher's state. */
export interface CampaignItem extends Omit<ApiCampaign, 'contactList' | 'whatsapp' | 'mediaUrl' | 'counts'> {
  PK: string;
  SK: string;
  entity: 'campaign';
  GSI4PK?: string;
  GSI4SK?: string;
  mediaKey: string | null;
  mediaType: string | null;
  mediaSize: number | null;
  /** Counts, moved with each shipment (never recounted). */
  recipients: number;
  delivered: number;
  confirmationRequested: number;
  confirmed: number;
  failed: number;
  /** Recipients all written (the start job's first step); a restart plans nothing again. */
  planned: boolean;
  /** The last shipment key of the slices written so far (planning writes in key order; the lane sends up to it). */
  plannedUpTo?: string | null;
  /** The last shipment key handed out in this run; a restart starts over (delivered ones are skipped). */
  cursor: string | null;
  /** Set by a restart: the start job puts the failed shipments back first. */
  retryFailed?: boolean;
}

export type ShipmentStatus = 'pending' | 'sending' | 'confirming' | 'confirmed' | 'delivered' | 'failed';

/** One recipient of a campaign (`shipmentKey`: by number). */
export interface ShipmentItem {
  PK: string;
  SK: string;
  entity: 'shipment';
  companyId: number;
  campaignId: number;
  number: string;
  name: string;
  email: string;
  /** The message variant (1-5) drawn for this recipient at planning. */
  variant: number;
  status: ShipmentStatus;
  /** What the claim is sending: the confirmation request or the campaign message. */
  phase?: 'confirm' | 'final';
  sendingAt?: string;
  contactId?: number;
  ticketId?: number;
  confirmationRequestedAt?: string;
  confirmedAt?: string;
  deliveredAt?: string;
  error?: string;
}

/** A connection's dispatch lane (decision 55). */
export interface LaneItem {
  PK: string;
  SK: string;
  entity: 'lane';
  companyId: number;
  connectionId: number;
  /** Epoch ms of the next free slot. */
  nextAt: number;
  /** Messages since the last long pause. */
  sent: number;
  /** The chain of jobs that owns the lane; null while idle. */
  chainId: string | null;
  /** When the lane's job last ran (the sweeper restarts a chain that stopped). */
  beatAt: number;
  /** Campaigns sending through the lane, served in turn. */
  campaigns: number[];
  turn: number;
  /** Confirmed recipients whose campaign message goes next. */
  ready: { campaignId: number; number: string }[];
  /** Since when the connection is seen down (campaigns stop after a grace period). */
  downSince?: number | null;
}

/** An internal chat (decision 57): members and their unread counts live on the chat, written with each message. */
export interface ChatItem extends BaseItem {
  entity: 'chat';
  id: number;
  uuid: string;
  companyId: number;
  title: string;
  isGroup: boolean;
  ownerId: number;
  memberIds: number[];
  /** Unread messages per member, keyed by the user id as text. */
  unreads: Record<string, number>;
  /** The newest message's number (0 before the first); message `n` has sort key `MSG#n`. */
  lastSeq: number;
  lastMessage: string;
}

export interface ChatMessageItem {
  PK: string;
  SK: string;
  entity: 'chatMessage';
  id: number;
  chatId: number;
  companyId: number;
  senderId: number;
  message: string;
  media: { key: string; mimetype: string; fileName: string; size: number; kind: 'image' | 'audio' | 'video' | 'other' } | null;
  createdAt: string;
}

/** A user's membership of a chat (what `GET /chats` lists). */
export interface UserChatItem {
  PK: string;
  SK: string;
  entity: 'userChat';
  chatId: number;
  userId: number;
}

// ------------------------------------------------------------------ billing (issue 22 §2, decision 61)

/** An invoice (`invoiceKey`): opened by the invoice job, paid by the provider's webhook. */
export interface InvoiceItem {
  PK: string;
  SK: string;
  GSI1PK?: string;
  GSI1SK?: string;
  entity: 'invoice';
  id: number;
  companyId: number;
  detail: string;
  value: number;
  dueDate: string;
  status: import('@balcao/shared').InvoiceStatus;
  paidAt: string | null;
  /** The provider's charge of the last checkout (Pix), and which provider made it. */
  chargeId?: string;
  chargeProvider?: 'asaas' | 'sandbox';
  /** The Pix copy-and-paste code and QR image of that charge (a second checkout answers it again). */
  pixPayload?: string;
  pixImage?: string;
  /** The webhook event that paid it. */
  paidEvent?: string;
  /** Set when a due date moved by hand superseded it (`cancelled`). */
  supersededAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** One invoice per company and due date (`invoiceDueMarker`). */
export interface InvoiceDueMarker {
  PK: string;
  SK: string;
  entity: 'invoiceDue';
  invoiceId: number;
}

/** A provider's charge → its invoice (`chargeKey`). */
export interface ChargeItem {
  PK: string;
  SK: string;
  entity: 'charge';
  provider: 'asaas' | 'sandbox';
  chargeId: string;
  companyId: number;
  invoiceId: number;
  createdAt: string;
}

/** The platform's payment provider (`billingConfigKey`): the Asaas key and webhook token, sealed; masks to answer. */
export interface BillingConfigItem {
  PK: string;
  SK: string;
  entity: 'billingConfig';
  provider: 'asaas' | 'sandbox';
  apiKeySealed: string | null;
  apiKeyMask: string;
  webhookTokenSealed: string | null;
  webhookTokenMask: string;
  /** SHA-256 (hex) of the webhook token: the webhook compares hashes, never opening the secret. */
  webhookTokenHash: string | null;
  updatedAt: string;
}
