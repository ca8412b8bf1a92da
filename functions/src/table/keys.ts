/**
 * The single table's keys (docs/data-model.md): the only module that spells a key, a partition or
 * an index key. Every tenant item's partition key starts with `C#<companyId>`; code gets the
 * company id only from the verified identity (or, for the platform's own items, none).
 * A test (functions/test/unit/data-model.test.ts) checks that docs/data-model.md names every
 * partition and sort-key prefix written here.
 */
export const pad = (n: number) => String(n).padStart(10, '0');

/** Accent- and case-free form of a name, as the name indexes sort it. */
export const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();

import type { TicketItem } from './items.js';

const company = (cid: number) => `C#${cid}`;

export const keys = {
  company: (cid: number) => ({ PK: company(cid), SK: 'COMPANY' }),
  /** The company's own partition (company, usage, users, queues, settings, connections…). */
  companyPartition: company,
  companyList: () => 'COMPANIES',
  /** A company in the platform's list (GSI1). */
  companyListKeys: (cid: number) => ({ GSI1PK: 'COMPANIES', GSI1SK: pad(cid) }),
  usage: (cid: number) => ({ PK: company(cid), SK: 'USAGE' }),
  counter: (cid: number, entity: string) => ({ PK: company(cid), SK: `COUNTER#${entity}` }),
  globalCounter: (entity: string) => ({ PK: 'COUNTER', SK: entity }),
  plan: (id: number) => ({ PK: 'PLAN', SK: pad(id) }),
  plansPartition: () => 'PLAN',
  planName: (name: string) => ({ PK: `UNIQ#PLANNAME#${name.trim().toLowerCase()}`, SK: 'UNIQ' }),
  /** Help videos are the platform's, not a tenant's: one partition, read whole by one Query. */
  help: (id: number) => ({ PK: 'HELP', SK: pad(id) }),
  helpsPartition: () => 'HELP',
  user: (cid: number, id: number) => ({ PK: company(cid), SK: `USER#${pad(id)}` }),
  userPrefix: () => 'USER#',
  identity: (sub: string) => ({ PK: `SUB#${sub}`, SK: 'IDENT' }),
  uniqueEmail: (email: string) => ({ PK: `UNIQ#EMAIL#${email.toLowerCase()}`, SK: 'UNIQ' }),
  uniqueCompanyEmail: (email: string) => ({ PK: `UNIQ#CEMAIL#${email.toLowerCase()}`, SK: 'UNIQ' }),
  queue: (cid: number, id: number) => ({ PK: company(cid), SK: `QUEUE#${pad(id)}` }),
  queuePrefix: () => 'QUEUE#',
  uniqueQueueColor: (cid: number, color: string) => ({ PK: company(cid), SK: `UNIQ#QCOLOR#${color.toLowerCase()}` }),
  /** A queue's options tree: one partition per queue (the bot reads it whole with one Query). */
  queueOptionsPartition: (cid: number, queueId: number) => `C#${cid}#QOPT#${pad(queueId)}`,
  queueOption: (cid: number, queueId: number, id: number) => ({ PK: `C#${cid}#QOPT#${pad(queueId)}`, SK: `O#${pad(id)}` }),
  queueOptionPrefix: () => 'O#',
  /** Which queue an option belongs to (the routes name only the option). */
  queueOptionPointer: (cid: number, id: number) => ({ PK: company(cid), SK: `QOPT#${pad(id)}` }),
  /** The option number taken among one parent's children (`0` for the root). */
  queueOptionNumber: (cid: number, queueId: number, parentId: number | null, option: string) => ({ PK: `C#${cid}#QOPT#${pad(queueId)}`, SK: `N#${pad(parentId ?? 0)}#${option}` }),
  /** How many children one parent has (`children`, kept under the width limit by a conditional ADD). */
  queueOptionWidth: (cid: number, queueId: number, parentId: number | null) => ({ PK: `C#${cid}#QOPT#${pad(queueId)}`, SK: `W#${pad(parentId ?? 0)}` }),
  setting: (cid: number, key: string) => ({ PK: company(cid), SK: `SETTING#${key}` }),
  settingPrefix: () => 'SETTING#',
  wsConnection: (connectionId: string) => ({ PK: `WS#${connectionId}`, SK: 'CONN' }),
  /** All open sockets of a company (fan-out and presence). */
  wsCompany: (cid: number, connectionId: string) => ({ PK: `C#${cid}#WS`, SK: connectionId }),
  wsCompanyPartition: (cid: number) => `C#${cid}#WS`,
  /** Room membership of a socket. */
  wsRoom: (cid: number, roomName: string, connectionId: string) => ({ PK: `C#${cid}#ROOM#${roomName}`, SK: connectionId }),
  wsRoomPartition: (cid: number, roomName: string) => `C#${cid}#ROOM#${roomName}`,
  /** Platform-wide sockets (announcements reach every company). */
  wsPlatform: (connectionId: string) => ({ PK: 'WS#ALL', SK: connectionId }),
  wsPlatformPartition: () => 'WS#ALL',
  /**
   * The version of a socket directory partition (a company's, a room's, the platform's), bumped
   * after each change of its members: the fan-out keeps a partition it read while this stays put.
   */
  wsDirectoryVersion: (partition: string) => ({ PK: `${partition}#V`, SK: 'V' }),
  /** Users online now, by their last heartbeat (sparse GSI2 partition; presence). */
  onlineUsersPartition: () => 'ONLINE',
  /** The local stack's seed marker (infra/local). */
  seed: () => ({ PK: 'SEED', SK: 'LOCAL' }),
  /** A synchronous question's answer from the session host (decision 15). */
  rpc: (rpcId: string) => ({ PK: `RPC#${rpcId}`, SK: 'RPC' }),
  /** A rate limit's state (services/rate-limits.ts): `scope` names the limit, `subject` the IP or account (hashed). */
  rateLimit: (scope: string, subject: string) => ({ PK: `RATE#${scope}#${subject}`, SK: 'RATE' }),
  /** Messages one connection token sent through the external API in one minute. */
  externalApiRate: (connectionId: number, minute: number) => ({ PK: `RATE#API#${connectionId}#${minute}`, SK: 'RATE' }),
  /** A session-host shard's lease; `ns` keeps test hosts apart from the stack's own. */
  lease: (ns: string, shard: number) => ({ PK: `LEASE#${ns}${shard}`, SK: 'LEASE' }),
  /** Live session-host tasks (one item each). */
  sessionHostsPartition: (ns: string) => `SESSION_HOSTS${ns}`,
};

// ------------------------------------------------------------------ connections

export const connectionKey = (cid: number, id: number) => ({ PK: company(cid), SK: `WAPP#${pad(id)}` });
export const connectionPrefix = () => 'WAPP#';
export const connectionNameMarker = (cid: number, name: string) => ({ PK: company(cid), SK: `UNIQ#WNAME#${name.trim().toLowerCase()}` });
/** A connection's API token, by its hash (the token is never stored). */
export const connectionTokenMarker = (hash: string) => ({ PK: `WTOKEN#${hash}`, SK: 'TOKEN' });
/** The connections of a session-host shard (GSI1). */
export const shardIndexKeys = (shard: number, cid: number, id: number) => ({ GSI1PK: shardPartition(shard), GSI1SK: `${cid}#${pad(id)}` });
export const shardPartition = (shard: number) => `SHARD#${shard}`;
/** One connection's WhatsApp credentials and signal keys. */
export const connectionAuthPartition = (cid: number, connectionId: number) => `C#${cid}#WAPP#${connectionId}#AUTH`;
/** A message proto the session host keeps about a week (WhatsApp's retries, poll votes); one partition each, read by key. */
export const messageProtoKey = (cid: number, connectionId: number, waMessageId: string) => ({ PK: `C#${cid}#WAPP#${connectionId}#PROTO#${waMessageId}`, SK: 'PROTO' });

// ------------------------------------------------------------------ contacts

export const contactKey = (cid: number, id: number) => ({ PK: `C#${cid}#CT#${pad(id)}`, SK: 'CONTACT' });
export const contactPkPrefix = (cid: number) => `C#${cid}#CT#`;
export const numberMarker = (cid: number, number: string) => ({ PK: `C#${cid}#NUM#${number}`, SK: 'NUM' });
export const lidMarker = (cid: number, lid: string) => ({ PK: `C#${cid}#LID#${lid}`, SK: 'LID' });
/** Contacts by name (GSI1). */
export const contactsPartition = (cid: number) => `C#${cid}#CONTACTS`;
export const contactsIndexKeys = (cid: number, name: string, id: number) => ({ GSI1PK: contactsPartition(cid), GSI1SK: `${fold(name)}#${pad(id)}` });
/** Contacts of one attendant, by name (GSI3). */
export const contactAttendantPartition = (cid: number, userId: number) => `C#${cid}#CTUSER#${userId}`;
export const contactAttendantKeys = (cid: number, userId: number | null, name: string, id: number) =>
  userId ? { GSI3PK: contactAttendantPartition(cid, userId), GSI3SK: `${fold(name)}#${pad(id)}` } : { GSI3PK: undefined, GSI3SK: undefined };

// ------------------------------------------------------------------ tickets

export type TicketTimerKind = 'transfer' | 'expire';

export const ticketKey = (cid: number, id: number) => ({ PK: `C#${cid}#TK#${pad(id)}`, SK: 'TICKET' });
export const uuidPointer = (cid: number, uuid: string) => ({ PK: `C#${cid}#TKU#${uuid}`, SK: 'UUID' });
/** The chat's current ticket (one non-closed ticket per contact and connection). */
export const currentMarker = (cid: number, connectionId: number, contactId: number) => ({ PK: `C#${cid}#CUR#${connectionId}#${contactId}`, SK: 'CUR' });
/** The list partitions: by status (GSI1), by agent and status (GSI2), by queue and status (GSI3). */
export const ticketsByStatus = (cid: number, status: string) => `C#${cid}#TKS#${status}`;
export const ticketsByUser = (cid: number, userId: number, status: string) => `C#${cid}#TKU#${userId}#${status}`;
export const ticketsByQueue = (cid: number, queueId: number, status: string) => `C#${cid}#TKQ#${queueId}#${status}`;
/** Newest first within a list partition. */
export const ticketSortKey = (t: { updatedAt: string; id: number }) => `${t.updatedAt}#${pad(t.id)}`;
/** The ticket timer index (GSI4): one connection's tickets that one timer kind watches. */
export const ticketTimerPartition = (cid: number, connectionId: number, kind: TicketTimerKind) => `C#${cid}#TMR#${connectionId}#${kind}`;
/**
 * The ticket timer index (GSI4, sparse): a pending ticket without a queue waits for the auto-transfer,
 * an open ticket whose last message was ours waits for the inactivity close, each in its
 * connection's partition ordered by its last activity (`updatedAt`). Computed with the list keys, so
 * every whole-item write of a ticket keeps it true; the sweeper reads only the due range.
 */
export function ticketTimerKeys(t: Pick<TicketItem, 'companyId' | 'id' | 'status' | 'queueId' | 'whatsappId' | 'updatedAt' | 'lastFromMe'>) {
  const kind: TicketTimerKind | undefined =
    t.status === 'pending' && t.queueId === null ? 'transfer' : t.status === 'open' && t.lastFromMe === true ? 'expire' : undefined;
  // undefined removes the attributes (the document client drops undefined values).
  if (!kind) return { GSI4PK: undefined, GSI4SK: undefined };
  return { GSI4PK: ticketTimerPartition(t.companyId, t.whatsappId, kind), GSI4SK: ticketSortKey(t) };
}

/**
 * A connection whose settings need the ticket timers is listed in the sparse `TIMERS` partition of
 * GSI2, so the sweeper reads only those connections.
 */
export function connectionTimerKeys(c: { companyId: number; id: number; timeToTransfer?: number | null; transferQueueId?: number | null; expiresTicket?: number | null }) {
  const on = ((c.timeToTransfer ?? 0) > 0 && !!c.transferQueueId) || (c.expiresTicket ?? 0) > 0;
  return on ? { GSI2PK: TIMER_CONNECTIONS, GSI2SK: timerConnectionSortKey(c.companyId, c.id) } : undefined;
}

/** The list indexes of a ticket (docs/data-model.md): per status, per agent, per queue; newest first. */
export function ticketIndexKeys(t: Pick<TicketItem, 'companyId' | 'id' | 'status' | 'userId' | 'queueId' | 'updatedAt' | 'whatsappId' | 'lastFromMe'>) {
  const sk = ticketSortKey(t);
  return {
    ...ticketTimerKeys(t),
    GSI1PK: ticketsByStatus(t.companyId, t.status),
    GSI1SK: sk,
    GSI2PK: ticketsByUser(t.companyId, t.userId ?? 0, t.status),
    GSI2SK: sk,
    GSI3PK: ticketsByQueue(t.companyId, t.queueId ?? 0, t.status),
    GSI3SK: sk,
  };
}

/** Connections with a ticket timer on (sparse GSI2 partition). */
export const TIMER_CONNECTIONS = 'TIMERS';
export const timerConnectionSortKey = (cid: number, id: number) => `${cid}#${pad(id)}`;
/** Tab counters (decision 23). */
export const ticketCountersPartition = (cid: number) => `C#${cid}#TCNT`;
export const ticketCounterSortKey = (f: { status: string; queueId: number | null; userId: number | null }) => `${f.status}#${pad(f.queueId ?? 0)}#${pad(f.userId ?? 0)}`;

// ------------------------------------------------------------------ dashboard

/**
 * The dashboard's aggregates (decision 60): per company-day (the company's calendar), in
 * DASHBOARD_DAY_SHARDS items a day so concurrent ticket writes rarely meet on one, and per agent-day.
 * A period is two range Queries in one partition, whatever the ticket count.
 */
export const DASHBOARD_DAY_SHARDS = 4;
export const dashboardPartition = (cid: number) => `C#${cid}#DASH`;
export const dashboardDayKey = (cid: number, day: string, shard: number) => ({ PK: dashboardPartition(cid), SK: `D#${day}#${shard}` });
export const dashboardAgentDayKey = (cid: number, day: string, userId: number) => ({ PK: dashboardPartition(cid), SK: `U#${day}#${pad(userId)}` });
/** A past day's sum of its day and agent-day items (written once the day is over: they no longer change). */
export const dashboardRollupKey = (cid: number, day: string) => ({ PK: dashboardPartition(cid), SK: `R#${day}` });
/** Bounds of a period's day items (`D#`), agent-day items (`U#`) or rollups (`R#`), `from`..`to` inclusive (YYYY-MM-DD). */
export const dashboardRange = (kind: 'D' | 'U' | 'R', from: string, to: string) => ({ from: `${kind}#${from}`, to: `${kind}#${to}#~` });

// ------------------------------------------------------------------ messages

/** A message in its ticket's partition, numbered densely (decision 16). */
export const messageSk = (seq: number) => `MSG#${pad(seq)}`;
/** The message of a WhatsApp id on one connection (dedup and lookups). */
export const messagePointer = (cid: number, waMessageId: string, connectionId: number) => ({ PK: messagePointers(cid, waMessageId), SK: `W#${connectionId}` });
export const messagePointers = (cid: number, waMessageId: string) => `C#${cid}#MID#${waMessageId}`;

// ------------------------------------------------------------------ notes, tags, quick replies, schedules

export const noteKey = (cid: number, id: number) => ({ PK: `C#${cid}#NOTE#${pad(id)}`, SK: 'NOTE' });
/** Notes of a contact, oldest first (GSI1). */
export const notesOfContact = (cid: number, contactId: number) => `C#${cid}#NOTES#${contactId}`;
export const noteIndexKeys = (cid: number, contactId: number, at: string, id: number) => ({ GSI1PK: notesOfContact(cid, contactId), GSI1SK: `${at}#${pad(id)}` });

export type TagLinkKind = 'TK' | 'CT';
export const tagKey = (cid: number, id: number) => ({ PK: `C#${cid}#TAG#${pad(id)}`, SK: 'TAG' });
export const tagLinkKey = (cid: number, tagId: number, kind: TagLinkKind, targetId: number) => ({ PK: tagKey(cid, tagId).PK, SK: `${tagLinkPrefix(kind)}${pad(targetId)}` });
/** The sort-key prefix of a tag's links of one kind (`''` for both). */
export const tagLinkPrefix = (kind: TagLinkKind | '') => (kind ? `${kind}#` : '');
export const tagsPartition = (cid: number) => `C#${cid}#TAGS`;
export const tagIndexKeys = (cid: number, name: string, id: number) => ({ GSI1PK: tagsPartition(cid), GSI1SK: `${fold(name)}#${pad(id)}` });

export const quickMessageKey = (cid: number, id: number) => ({ PK: `C#${cid}#QM#${pad(id)}`, SK: 'QM' });
export const shortcodeMarker = (cid: number, ownerId: number, shortcode: string) => ({ PK: `C#${cid}#QMCODE#${ownerId}#${fold(shortcode)}`, SK: 'UNIQ' });
export const quickMessagesPartition = (cid: number) => `C#${cid}#QMS`;
export const quickMessageIndexKeys = (cid: number, shortcode: string, id: number) => ({ GSI1PK: quickMessagesPartition(cid), GSI1SK: `${fold(shortcode)}#${pad(id)}` });

export const scheduleKey = (cid: number, id: number) => ({ PK: `C#${cid}#SCH#${pad(id)}`, SK: 'SCHEDULE' });
/** A company's schedules by send time (GSI1). */
export const schedulesPartition = (cid: number) => `C#${cid}#SCHS`;
export const scheduleListSortKey = (sendAt: string, id: number) => `${sendAt}#${pad(id)}`;
/** The schedules still to send (sparse GSI4), split in a few partitions so no one key takes every write. */
export const SCHEDULE_DUE_SHARDS = 4;
export const scheduleDuePartition = (shard: number) => `SCHDUE#${shard}`;
export const scheduleDueKeys = (cid: number, id: number, at: string) => ({
  GSI4PK: scheduleDuePartition((cid + id) % SCHEDULE_DUE_SHARDS),
  GSI4SK: `${at}#${cid}#${pad(id)}`,
});

// ------------------------------------------------------------------ search index (decisions 22, 29)

export type SearchContactKind = 'N' | 'D';
/** Sort key of the index items listed by ticket id (message words, a contact's tickets). */
export const ticketIdSortKey = (ticketId: number) => pad(ticketId);
/** Message words: one item per word and ticket, sorted by ticket id. */
export const messageTokenPartition = (cid: number, token: string) => `C#${cid}#TOK#M#${token}`;
export const messageTokenKey = (cid: number, token: string, ticketId: number) => ({ PK: messageTokenPartition(cid, token), SK: ticketIdSortKey(ticketId) });
/** A contact's own tokens (read and replaced with one Query). */
export const contactTokensPartition = (cid: number, contactId: number) => `C#${cid}#CTOK#${pad(contactId)}`;
/** Contact tokens by kind: name phrases (`N`) and number digits (`D`), on GSI1. */
export const contactSearchPartition = (cid: number, kind: SearchContactKind) => `C#${cid}#SRCH#${kind}`;
/** One token of a contact: in the contact's partition, and in its kind's index partition (GSI1). */
export const contactTokenKeys = (cid: number, contactId: number, t: { kind: SearchContactKind; token: string }) => ({
  PK: contactTokensPartition(cid, contactId),
  SK: `${t.kind}#${t.token}`,
  GSI1PK: contactSearchPartition(cid, t.kind),
  GSI1SK: `${t.token}#${pad(contactId)}`,
});
/** A contact's tickets, written with each ticket. */
export const contactTicketsPartition = (cid: number, contactId: number) => `C#${cid}#CTK#${pad(contactId)}`;
export const contactTicketKey = (cid: number, contactId: number, ticketId: number) => ({ PK: contactTicketsPartition(cid, contactId), SK: ticketIdSortKey(ticketId) });
/** A contact's ticket list in one item (decision 29). */
export const contactTicketListKey = (cid: number, contactId: number) => ({ PK: `C#${cid}#CTL#${pad(contactId)}`, SK: 'TICKETS' });

// ------------------------------------------------------------------ integrations and AI prompts (issue 19)

/** A company's queue integrations: one partition (tens per company, listed whole). */
export const integrationsPartition = (cid: number) => `C#${cid}#INTEG`;
export const integrationKey = (cid: number, id: number) => ({ PK: integrationsPartition(cid), SK: `QI#${pad(id)}` });
export const integrationPrefix = () => 'QI#';
/** A company's AI prompts: one partition. */
export const promptsPartition = (cid: number) => `C#${cid}#PROMPTS`;
export const promptKey = (cid: number, id: number) => ({ PK: promptsPartition(cid), SK: `P#${pad(id)}` });
export const promptPrefix = () => 'P#';

// ------------------------------------------------------------------ contact lists (issue 20 §2)

/** A company's contact lists: one partition (listed whole: tens to hundreds of lists). */
export const contactListsPartition = (cid: number) => `C#${cid}#CLIST`;
export const contactListKey = (cid: number, id: number) => ({ PK: contactListsPartition(cid), SK: `L#${pad(id)}` });
export const contactListPrefix = () => 'L#';
/** One list's items, by folded name then id (pages in name order), with a marker per number. */
export const contactListItemsPartition = (cid: number, listId: number) => `C#${cid}#CLI#${pad(listId)}`;
export const contactListItemSk = (name: string, id: number) => `I#${fold(name).slice(0, 60)}#${pad(id)}`;
export const contactListItemPrefix = () => 'I#';
export const contactListNumberMarker = (cid: number, listId: number, number: string) => ({ PK: contactListItemsPartition(cid, listId), SK: `N#${number}` });
/** Which list and sort key an item has (the routes name only the item). */
export const contactListItemPointer = (cid: number, id: number) => ({ PK: `C#${cid}`, SK: `CLITEM#${pad(id)}` });
/** A spreadsheet import's checked rows, a chunk each, in the list's partition until the import takes them. */
export const contactListImportChunkKey = (cid: number, listId: number, importId: string, chunk: number) => ({
  PK: contactListItemsPartition(cid, listId),
  SK: `M#${importId}#${pad(chunk)}`,
});

// ------------------------------------------------------------------ file lists and campaign settings (issue 20 §3)

/** A company's file lists: one partition (listed whole: tens of lists, each with its options inside). */
export const fileListsPartition = (cid: number) => `C#${cid}#FLIST`;
export const fileListKey = (cid: number, id: number) => ({ PK: fileListsPartition(cid), SK: `F#${pad(id)}` });
export const fileListPrefix = () => 'F#';
/** A company's campaign settings: one item in its own partition (removed with the company). */
export const campaignSettingsKey = (cid: number) => ({ PK: company(cid), SK: 'CAMPAIGNCFG' });

// ------------------------------------------------------------------ announcements (issue 21 §3, decision 58)

/** The platform's announcements: one partition, not a tenant's (the super user publishes to every company). */
export const announcementsPartition = () => 'ANNOUNCEMENTS';
export const announcementKey = (id: number) => ({ PK: announcementsPartition(), SK: `A#${pad(id)}` });
export const announcementPrefix = () => 'A#';
/** The active announcements in the popover's order (sparse GSI1: an inactive one leaves it). */
export const activeAnnouncementsPartition = () => 'ANNOUNCEMENTS#ACTIVE';
const LAST_MS = 9_999_999_999_999;
const LAST_ID = 9_999_999_999;
/**
 * GSI1 keys of an announcement: while active, priority first (1 is high), then newest first and the
 * higher id on a tie (time and id inverted), so every reader gets the order with one forward Query.
 */
export function announcementIndexKeys(a: { id: number; priority: number; status: boolean; createdAt: string }) {
  // undefined removes the attributes (the document client drops undefined values).
  if (!a.status) return { GSI1PK: undefined, GSI1SK: undefined };
  const newestFirst = String(LAST_MS - Date.parse(a.createdAt)).padStart(13, '0');
  return { GSI1PK: activeAnnouncementsPartition(), GSI1SK: `${a.priority}#${newestFirst}#${pad(LAST_ID - a.id)}` };
}

// ------------------------------------------------------------------ campaigns (issue 20 §3-§4, decision 55)

/** A company's campaigns: one partition (listed whole: tens to hundreds). */
export const campaignsPartition = (cid: number) => `C#${cid}#CAMP`;
export const campaignKey = (cid: number, id: number) => ({ PK: campaignsPartition(cid), SK: `K#${pad(id)}` });
export const campaignPrefix = () => 'K#';
/** Scheduled campaigns to start (sparse GSI4 while PROGRAMADA), split like the schedules' index. */
export const CAMPAIGN_DUE_SHARDS = 4;
export const campaignDuePartition = (shard: number) => `CAMPDUE#${shard}`;
export const campaignDueKeys = (cid: number, id: number, at: string) => ({ GSI4PK: campaignDuePartition((cid + id) % CAMPAIGN_DUE_SHARDS), GSI4SK: `${at}#${cid}#${pad(id)}` });
/** One campaign's shipments, a conditional item per recipient number (never two sends to one number). */
export const shipmentsPartition = (cid: number, campaignId: number) => `C#${cid}#CSHIP#${pad(campaignId)}`;
export const shipmentKey = (cid: number, campaignId: number, number: string) => ({ PK: shipmentsPartition(cid, campaignId), SK: `S#${number}` });
export const shipmentPrefix = () => 'S#';
/** A connection's dispatch lane: its pace and the campaigns sending through it. */
export const laneKey = (cid: number, connectionId: number) => ({ PK: `C#${cid}#LANE`, SK: `W#${pad(connectionId)}` });
/** Lanes with work, across companies: what the sweeper watches (a lane whose chain of jobs stopped is restarted). */
export const ACTIVE_LANES = 'CAMPLANES';
export const activeLaneMarker = (cid: number, connectionId: number) => ({ PK: ACTIVE_LANES, SK: `${cid}#${pad(connectionId)}` });

// ------------------------------------------------------------------ internal chat (issue 21 §2, decision 57)

/** A chat and its messages share one partition: the chat item (members, unread counts, last seq) and `MSG#` items numbered densely. */
export const chatPartition = (cid: number, chatId: number) => `C#${cid}#CHAT#${pad(chatId)}`;
export const chatKey = (cid: number, chatId: number) => ({ PK: chatPartition(cid, chatId), SK: 'CHAT' });
export const chatMessageKey = (cid: number, chatId: number, seq: number) => ({ PK: chatPartition(cid, chatId), SK: chatMessageSk(seq) });
export const chatMessageSk = (seq: number) => `MSG#${pad(seq)}`;
export const chatMessagePrefix = () => 'MSG#';
/** One user's chats: a pointer per chat they belong to (listed whole: a user's tens of chats). */
export const userChatsPartition = (cid: number, userId: number) => `C#${cid}#CHATS#${pad(userId)}`;
export const userChatKey = (cid: number, userId: number, chatId: number) => ({ PK: userChatsPartition(cid, userId), SK: `CH#${pad(chatId)}` });
export const userChatPrefix = () => 'CH#';

// ------------------------------------------------------------------ billing (issue 22 §2, decision 61)

/** A company's invoices: one partition (one invoice a month: tens over the years, listed whole). */
export const invoicesPartition = (cid: number) => `C#${cid}#INV`;
export const invoiceKey = (cid: number, id: number) => ({ PK: invoicesPartition(cid), SK: `I#${pad(id)}` });
export const invoicePrefix = () => 'I#';
/** One invoice per company and due date: put with the invoice, `attribute_not_exists(PK)` (two job runs open one). */
export const invoiceDueMarker = (cid: number, dueDate: string) => ({ PK: invoicesPartition(cid), SK: `D#${dueDate}` });
/** Every company's invoices for the super user (GSI1), newest due date first when read backwards. */
export const ALL_INVOICES = 'INVOICES';
export const allInvoicesKeys = (cid: number, id: number, dueDate: string) => ({ GSI1PK: ALL_INVOICES, GSI1SK: `${dueDate}#${pad(cid)}#${pad(id)}` });
/** A provider's charge → its invoice (the webhook names only the charge). */
export const chargeKey = (provider: string, chargeId: string) => ({ PK: `CHARGE#${provider}#${chargeId}`, SK: 'CHARGE' });
/**
 * The invoice job's index (GSI4, sparse, on the company item): `GSI4SK` is when the job must next
 * look at the company (`billingLookAt` in shared/src/billing.ts): its invoice window's start, then
 * its blocking instant; absent while blocked or without a due date.
 */
export const COMPANY_DUE = 'COMPANYDUE';
export const companyDueKeys = (cid: number, lookAt: number | undefined) =>
  lookAt === undefined ? undefined : { GSI4PK: COMPANY_DUE, GSI4SK: `${new Date(lookAt).toISOString()}#${pad(cid)}` };
/** The platform's payment provider setting (the `asaas` key and webhook token, sealed). */
export const billingConfigKey = () => ({ PK: 'BILLING', SK: 'CONFIG' });
