/**
 * Memory per busy Baileys session (issue 17 §12), without a stack: `npm run bench -- --only
 * baileys-memory` (options --sessions 20 --contacts 5000 --groups 200 --group-size 30 --devices 3000
 * --messages 6000 --group-sends 50 --baileys-memory-out <file>).
 *
 * N sessions of the real Baileys provider (`createBaileysProvider`) run on a fake socket that has
 * Baileys' own event emitter (`makeEventBuffer`) and key transactions (`addTransactionCapability`,
 * as `makeWASocket` wraps the keys), and the real `DynamoAuthStore` over an in-memory table. Each
 * replays a busy account whose partition an earlier owner wrote (a takeover or a restart): thousands
 * of contacts with names, hundreds of groups with their participants, thousands of messages from
 * many chats, each decrypted as Baileys does (the sender's session or sender key read and written
 * in a key transaction), group sends (sender-key memory and the sessions of every participant's
 * devices at once) and devices never seen (absent keys). Values have real shapes and sizes: session
 * records as libsignal serialises them, sender keys as Baileys stores them, an LT hash map past the
 * item limit.
 *
 * Measured in a child `node --expose-gc` (the runner runs parts in its own process): heap and
 * external memory after a full GC with the N sessions alive, minus a baseline taken after the
 * table was filled and one warm-up session ran and stopped (code loaded, JIT warm). What the table
 * gained meanwhile (keys of new devices) is subtracted; it would be DynamoDB's. The socket is fake,
 * so Baileys' own socket caches (5-minute TTL device and retry caches, its LID cache) are not in the
 * figure.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BaileysEventMap, Contact, GroupMetadata, SignalKeyStoreWithTransaction, UserFacingSocketConfig, WAMessage } from '@whiskeysockets/baileys';
import type { SessionContext } from '@balcao/session-host/provider';
import type { BaileysSocket } from '@balcao/session-host/providers/baileys/socket';

const HERE = fileURLToPath(import.meta.url);
const REPO_ROOT = path.resolve(path.dirname(HERE), '..', '..');

export const BAILEYS_MEMORY_DEFAULTS = { sessions: 20, contacts: 5_000, groups: 200, groupSize: 30, devices: 3_000, messages: 6_000, groupSends: 50 };
export type BaileysMemoryOptions = typeof BAILEYS_MEMORY_DEFAULTS;
/**
 * Retained memory per busy session. A session-host task (infra/lib/sessions-stack.ts) has 1 GB: at
 * 15 MB, 50 busy sessions take 750 MB and leave room for Node, Baileys' sockets and bursts; 100 fit
 * a 2 GB task. Quiet accounts take far less, so this bounds the worst case of a shard.
 */
export const TARGET_MB_PER_SESSION = 15;

const MB = 2 ** 20;
const round1 = (v: number) => Math.round(v * 10) / 10;

// ------------------------------------------------------------------------------------------ parent

/**
 * Runs the measurement in a child `node --expose-gc` and writes its figures into `out` as the
 * `after` run. The `before` run there (the store that read the whole partition) was measured once
 * with a temporary copy of that store and is kept as it is.
 */
export async function baileysMemoryPart(o: BaileysMemoryOptions & { out: string }, log: (line: string) => void): Promise<{ pass: boolean }> {
  const flags = Object.entries(o)
    .filter(([k]) => k !== 'out')
    .flatMap(([k, v]) => [`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(v)]);
  const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', HERE, '--child', ...flags], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let result: Record<string, any> | undefined;
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('RESULT ')) result = JSON.parse(line.slice(7));
      else if (line) log(`baileys-memory: ${line}`);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0 || !result) throw new Error(`baileys-memory child exited with ${code}`);

  let doc: Record<string, any> = {};
  try {
    doc = JSON.parse(fs.readFileSync(o.out, 'utf8'));
  } catch {
    /* first run */
  }
  const label = 'after';
  doc = {
    ...doc,
    issue: 'issue 17 §12: memory per busy Baileys session',
    command: 'npm run bench -- --only baileys-memory (infra/bench/baileys-memory.ts)',
    method: 'heapUsed + external after global.gc() with N sessions alive, minus the baseline (table filled, a warm-up session run and stopped), minus what the in-memory table gained meanwhile, divided by N; rss likewise (not corrected for the table)',
    target: { retainedMBPerSession: TARGET_MB_PER_SESSION, why: 'a 1 GB session-host task holds 50 busy sessions in 750 MB with room for Node and the sockets; 100 fit a 2 GB task' },
    runs: { ...(doc.runs ?? {}), [label]: { ...result, note: doc.runs?.[label]?.note, pass: result.perSession.retainedMB <= TARGET_MB_PER_SESSION } },
  };
  fs.mkdirSync(path.dirname(o.out), { recursive: true });
  fs.writeFileSync(o.out, `${JSON.stringify(doc, null, 2)}\n`);
  const p = result.perSession;
  log(`baileys-memory: ${p.retainedMB} MB retained per session (target <= ${TARGET_MB_PER_SESSION}), heap ${p.heapMB} + external ${p.externalMB}, rss ${p.rssMB} MB; written to ${path.relative(process.cwd(), o.out)}`);
  return { pass: p.retainedMB <= TARGET_MB_PER_SESSION };
}

// ------------------------------------------------------------------------------------------- child

/** Deterministic numbers, so every run replays the same accounts. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = ['Ana', 'Bruno', 'Conceição', 'João', 'Márcia', 'Zé', 'Luíza', 'Anderson', 'Fernanda', 'Otávio', 'Raimunda', 'Thiago'];
const LAST = ['Silva', 'Araújo', 'Gonçalves', 'Pereira', 'Assunção', 'Loja 🛒', 'Entregas 🚚', 'Magalhães', 'Oliveira', 'Souza'];
const WORDS = 'bom dia quero saber o preço do pedido entrega amanhã pode ser pix obrigado valeu tem disponível tamanho cor azul'.split(' ');

/** One account: contacts (number, LID, name), their devices, groups of contacts. Only numbers: the LID is derived from the number. */
function account(index: number, o: BaileysMemoryOptions) {
  const rnd = prng(1000 + index);
  const contacts = Array.from({ length: o.contacts }, (_, i) => {
    const number = String(5511900000000 + index * 1_000_000 + i * 7);
    return { number, lid: lidOf(number), name: `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]} ${i}` };
  });
  // Devices with a session: the first contacts' phones, some with a linked computer (device 1..).
  const devices: { contact: number; device: number }[] = [];
  for (let c = 0; devices.length < o.devices; c = (c + 1) % o.contacts) {
    devices.push({ contact: c, device: 0 });
    if (rnd() < 0.3 && devices.length < o.devices) devices.push({ contact: c, device: 1 + Math.floor(rnd() * 20) });
  }
  const groups = Array.from({ length: o.groups }, (_, g) => ({
    jid: `1203630${String(index * 10_000 + g).padStart(11, '0')}@g.us`,
    subject: `Grupo ${g} ${LAST[g % LAST.length]}`,
    members: Array.from({ length: o.groupSize }, () => Math.floor(rnd() * o.contacts)),
  }));
  return { rnd, contacts, devices, groups, own: { number: String(5511990000000 + index), lid: lidOf(String(5511990000000 + index)) } };
}
type Account = ReturnType<typeof account>;
/** A LID as WhatsApp gives them (15 digits), derived so the fake socket's LID store needs no memory. */
const lidOf = (number: string) => `2${number.padStart(14, '0')}`;
const numberOfLid = (lid: string) => lid.slice(1).replace(/^0+/, '');
const sessionAddr = (lid: string, device: number) => `${lid}_1.${device}`;
const deviceJid = (lid: string, device: number) => `${lid}${device ? `:${device}` : ''}@lid`;

const b64 = (n: number) => randomBytes(n).toString('base64');

/**
 * A libsignal SessionRecord as `serialize()` gives it: the open session and some closed ones
 * (libsignal keeps up to 40), each with its receiving chains and skipped message keys. A few KB.
 */
function sessionRecord(rnd: () => number) {
  const entry = (closed: number) => {
    const chains: Record<string, unknown> = {};
    const nChains = 1 + Math.floor(rnd() * 3);
    for (let c = 0; c < nChains; c++) {
      const messageKeys: Record<string, string> = {};
      const skipped = Math.floor(rnd() * rnd() * 12);
      for (let k = 0; k < skipped; k++) messageKeys[String(k + Math.floor(rnd() * 50))] = b64(32);
      chains[b64(33)] = { chainKey: { counter: Math.floor(rnd() * 200), key: c === 0 && closed !== -1 ? undefined : b64(32) }, chainType: 1 + (c % 2), messageKeys };
    }
    return {
      registrationId: Math.floor(rnd() * 16380),
      currentRatchet: { ephemeralKeyPair: { pubKey: b64(33), privKey: b64(32) }, lastRemoteEphemeralKey: b64(33), previousCounter: Math.floor(rnd() * 100), rootKey: b64(32) },
      indexInfo: { baseKey: b64(33), baseKeyType: 1 + Math.floor(rnd() * 2), closed, used: 1_700_000_000_000 + Math.floor(rnd() * 1e10), created: 1_690_000_000_000, remoteIdentityKey: b64(33) },
      _chains: chains,
      ...(rnd() < 0.1 ? { pendingPreKey: { signedKeyId: 7, baseKey: b64(33), preKeyId: Math.floor(rnd() * 800) } } : {}),
    };
  };
  const sessions: Record<string, unknown> = { [b64(33)]: entry(-1) };
  const closed = Math.floor(rnd() * rnd() * 7);
  for (let i = 0; i < closed; i++) sessions[b64(33)] = entry(1_700_000_000_000 + i);
  return { _sessions: sessions, version: 'v1' };
}

/** A SenderKeyRecord as Baileys stores it: `Buffer.from(JSON.stringify(states))` (Buffers as number arrays). */
function senderKey(rnd: () => number, iteration = Math.floor(rnd() * 500)) {
  const states = Array.from({ length: 1 + Math.floor(rnd() * rnd() * 3) }, () => ({
    senderKeyId: Math.floor(rnd() * 2 ** 31),
    senderChainKey: { iteration, seed: randomBytes(32) },
    senderSigningKey: { public: randomBytes(33) },
    senderMessageKeys: Array.from({ length: Math.floor(rnd() * rnd() * 6) }, (_, k) => ({ iteration: iteration - k - 1, seed: randomBytes(32) })),
  }));
  return Buffer.from(JSON.stringify(states), 'utf-8');
}

/** An app-state collection's LT hash state with `entries` index values (one per contact or chat setting). */
function ltHash(entries: number) {
  const indexValueMap: Record<string, { valueMac: Buffer }> = {};
  for (let i = 0; i < entries; i++) indexValueMap[b64(32)] = { valueMac: randomBytes(32) };
  return { version: 400 + entries, hash: randomBytes(128), indexValueMap };
}

async function child() {
  const { values } = parseArgs({
    options: {
      child: { type: 'boolean' },
      sessions: { type: 'string' },
      contacts: { type: 'string' },
      groups: { type: 'string' },
      'group-size': { type: 'string' },
      devices: { type: 'string' },
      messages: { type: 'string' },
      'group-sends': { type: 'string' },
    },
  });
  const int = (v: string | undefined, d: number) => (v === undefined ? d : Math.max(1, Math.floor(Number(v))));
  const D = BAILEYS_MEMORY_DEFAULTS;
  const o: BaileysMemoryOptions = {
    sessions: int(values.sessions, D.sessions),
    contacts: int(values.contacts, D.contacts),
    groups: int(values.groups, D.groups),
    groupSize: int(values['group-size'], D.groupSize),
    devices: int(values.devices, D.devices),
    messages: int(values.messages, D.messages),
    groupSends: int(values['group-sends'], D.groupSends),
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const started = Date.now();

  const { addTransactionCapability, initAuthCreds, makeEventBuffer, proto } = await import('@whiskeysockets/baileys');
  const { createBaileysProvider } = await import('@balcao/session-host/providers/baileys/index');
  const { baileysLogger } = await import('@balcao/session-host/providers/baileys/logger');
  const { serialize, tableSignalKeyStore } = await import('@balcao/session-host/providers/baileys/auth');
  const { MemoryTable } = await import('@balcao/session-host/host/memory-table');
  const { DynamoAuthStore } = await import('@balcao/session-host/host/auth-store');

  const TABLE = 'bench';
  const table = new MemoryTable({ record: false });
  const pkOf = (i: number) => `C#1#WAPP#${i}#AUTH`;
  const storeOf = (i: number) => new DynamoAuthStore(pkOf(i), { client: table.client, tableName: TABLE });
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const logger = baileysLogger(quiet, 'error');
  const sizes = { session: [] as number[], senderKey: [] as number[] };

  /** What an earlier owner of the session left in the table: every key a busy account has. */
  async function seed(i: number, a: Account) {
    const store = storeOf(i);
    const keys = tableSignalKeyStore(store);
    const creds = initAuthCreds();
    creds.me = { id: `${a.own.number}:12@s.whatsapp.net`, lid: `${a.own.lid}:12@lid`, name: 'Loja' };
    creds.registered = true;
    await store.set({ creds: serialize(creds) });
    // Sets of 100, as Baileys' transactions commit them.
    const inSets = async (type: string, entries: [string, unknown][]) => {
      for (let k = 0; k < entries.length; k += 100) await keys.set({ [type]: Object.fromEntries(entries.slice(k, k + 100)) } as never);
    };
    await inSets('pre-key', Array.from({ length: 500 }, (_, k) => [String(300 + k), { private: randomBytes(32), public: randomBytes(32) }]));
    await inSets(
      'session',
      a.devices.map((d) => {
        const rec = sessionRecord(a.rnd);
        if (i === 0) sizes.session.push(serialize(rec).length);
        return [sessionAddr(a.contacts[d.contact]!.lid, d.device), rec];
      }),
    );
    await inSets('identity-key', a.devices.map((d) => [sessionAddr(a.contacts[d.contact]!.lid, d.device), Buffer.concat([Buffer.from([5]), randomBytes(32)])]));
    const senderKeys: [string, Buffer][] = [];
    for (const g of a.groups) {
      for (const m of g.members) {
        const value = senderKey(a.rnd);
        if (i === 0) sizes.senderKey.push(serialize(value).length);
        senderKeys.push([`${g.jid}::${a.contacts[m]!.lid}_1::0`, value]);
      }
    }
    await inSets('sender-key', senderKeys);
    await inSets(
      'sender-key-memory',
      a.groups.map((g) => [g.jid, Object.fromEntries(g.members.map((m) => [deviceJid(a.contacts[m]!.lid, 0), true]))]),
    );
    await inSets('device-list', a.contacts.slice(0, Math.ceil(a.devices.length / 1.3)).map((c) => [c.number, ['0', '1']]));
    await inSets('lid-mapping', a.contacts.flatMap((c) => [[c.number, c.lid] as [string, string], [`${c.lid}_reverse`, c.number] as [string, string]]));
    await inSets('app-state-sync-key', Array.from({ length: 8 }, (_, k) => [`AAAAA${k}`, { keyData: randomBytes(32), fingerprint: { rawId: k, currentIndex: k, deviceIndexes: [0, 1] }, timestamp: 1_700_000_000 + k }]));
    // The contacts collection carries one LT hash entry per contact: past the item limit, in chunks.
    await keys.set({ 'app-state-sync-version': { regular_high: ltHash(a.contacts.length) } as never });
    await keys.set({ 'app-state-sync-version': { regular: ltHash(300), regular_low: ltHash(800), critical_block: ltHash(20), critical_unblock_low: ltHash(50) } as never });
    await store.set({ addressbook: JSON.stringify(Object.fromEntries(a.contacts.map((c) => [c.number, c.name]))) });
  }

  /** Baileys' socket as the provider sees it, with Baileys' emitter and key transactions; answers from the account's formulas. */
  class BenchSocket implements BaileysSocket {
    ev = makeEventBuffer(logger);
    user?: Contact;
    keys: SignalKeyStoreWithTransaction;
    signalRepository = {
      lidMapping: {
        getPNForLID: async (lid: string) => `${numberOfLid(lid.split(/[:@]/)[0]!)}@s.whatsapp.net`,
        getLIDForPN: async (pn: string) => `${lidOf(pn.split(/[:@]/)[0]!)}@lid`,
      },
    };
    constructor(readonly config: UserFacingSocketConfig) {
      this.keys = addTransactionCapability(config.auth.keys, logger, { maxCommitRetries: 10, delayBetweenTriesMs: 3000 });
    }
    sendMessage = async () => undefined;
    readMessages = async () => {};
    rejectCall = async () => {};
    sendPresenceUpdate = async () => {};
    onWhatsApp = async () => [];
    groupMetadata = async (jid: string) => ({ id: jid, subject: 'Grupo', participants: [] }) as unknown as GroupMetadata;
    requestPairingCode = async () => 'ABCD1234';
    profilePictureUrl = async () => undefined;
    updateMediaMessage = async (m: WAMessage) => m;
    logout = async () => {};
    end = (error: Error | undefined) => this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    emit<T extends keyof BaileysEventMap>(event: T, arg: BaileysEventMap[T]) {
      this.ev.emit(event, arg);
    }
  }

  const settle = () => new Promise((r) => setImmediate(r));

  /** Starts session `i` on its partition and replays the busy day; returns what must stay alive. */
  async function replay(i: number, a: Account) {
    const counts = { events: 0 };
    const auth = storeOf(i);
    const ctx: SessionContext = {
      companyId: 1,
      connectionId: i,
      emit: async () => void counts.events++,
      storeMedia: async (data, mimetype) => ({ key: 'm', mimetype, size: data.length }),
      storeMediaStream: async (_d, mimetype) => ({ key: 'm', mimetype, size: 0 }),
      readMedia: async () => Buffer.alloc(0),
      auth,
      getMessage: async () => undefined,
      protos: { put: async () => {}, get: async () => undefined },
      log: quiet,
    };
    let sock!: BenchSocket;
    const provider = createBaileysProvider({
      makeSocket: (config) => (sock = new BenchSocket(config)),
      downloadMedia: async () => Buffer.alloc(0),
      transcodeVoice: async (b) => b,
      random: () => 0.5,
      logLevel: 'error',
    });
    const session = provider.create(ctx);
    await session.start();
    sock.user = { id: `${a.own.number}:12@s.whatsapp.net`, lid: `${a.own.lid}:12@lid`, name: 'Loja' };
    sock.emit('connection.update', { connection: 'open' });

    // The app state sync: its LT hash state and keys read, every saved contact with its name (in
    // bursts), the state written back one entry longer.
    const keys = sock.keys;
    await keys.transaction(async () => {
      await keys.get('app-state-sync-key', ['AAAAA0', 'AAAAA1']);
      const { regular_high: state } = await keys.get('app-state-sync-version', ['regular_high']);
      if (state) state.indexValueMap[b64(32)] = { valueMac: randomBytes(32) };
      await keys.set({ 'app-state-sync-version': { regular_high: state ?? ltHash(1) } as never });
    }, 'app-state');
    for (let k = 0; k < a.contacts.length; k += 500) {
      sock.emit(
        'contacts.upsert',
        a.contacts.slice(k, k + 500).map((c) => ({ id: `${c.number}@s.whatsapp.net`, lid: `${c.lid}@lid`, phoneNumber: `${c.number}@s.whatsapp.net`, name: c.name, notify: c.name.split(' ')[0] })),
      );
      await settle();
    }
    sock.emit(
      'groups.upsert',
      a.groups.map((g, n) => ({
        id: g.jid,
        subject: g.subject,
        desc: `Grupo de clientes ${n}: avisos, pedidos e entregas da semana`,
        owner: `${a.own.lid}@lid`,
        creation: 1_690_000_000 + n,
        addressingMode: 'lid',
        size: g.members.length,
        participants: g.members.map((m, k) => ({ id: `${a.contacts[m]!.lid}@lid`, phoneNumber: `${a.contacts[m]!.number}@s.whatsapp.net`, admin: k === 0 ? 'admin' : null })),
      })) as unknown as GroupMetadata[],
    );

    let nextId = 0;
    const text = () => Array.from({ length: 3 + Math.floor(a.rnd() * 12) }, () => WORDS[Math.floor(a.rnd() * WORDS.length)]).join(' ');
    for (let m = 0; m < o.messages; m++) {
      const id = `3A${i.toString(16).padStart(4, '0')}${(nextId++).toString(16).padStart(12, '0').toUpperCase()}`;
      let msg: WAMessage;
      if (m % 2 === 0) {
        // A chat: decrypting reads the sender's session (a new device now and then: absent) and stores it advanced.
        const fresh = a.rnd() < 0.05;
        const d = a.devices[(m / 2) % a.devices.length]!;
        const c = a.contacts[fresh ? Math.floor(a.rnd() * a.contacts.length) : d.contact]!;
        const addr = sessionAddr(c.lid, fresh ? 30 + Math.floor(a.rnd() * 30) : d.device);
        await keys.transaction(async () => {
          await keys.get('lid-mapping', [c.number]);
          const { [addr]: rec } = await keys.get('session', [addr]);
          const next = rec ? (JSON.parse(JSON.stringify(rec)) as ReturnType<typeof sessionRecord>) : sessionRecord(a.rnd);
          const open = Object.values(next._sessions)[0] as { currentRatchet: { previousCounter: number } };
          open.currentRatchet.previousCounter++;
          await keys.set({ session: { [addr]: next as never } });
          if (!rec) await keys.set({ 'identity-key': { [addr]: Buffer.concat([Buffer.from([5]), randomBytes(32)]) } });
        }, addr);
        msg = proto.WebMessageInfo.fromObject({
          key: { remoteJid: `${c.lid}@lid`, remoteJidAlt: `${c.number}@s.whatsapp.net`, fromMe: false, id },
          message: a.rnd() < 0.8 ? { conversation: text() } : { extendedTextMessage: { text: text(), contextInfo: { stanzaId: `3A${nextId - 2}`, participant: `${c.lid}@lid` } } },
          messageTimestamp: 1_700_000_000 + m,
          pushName: c.name.split(' ')[0],
        }) as WAMessage;
      } else {
        // A group message: the author's sender key, advanced.
        const g = a.groups[Math.floor(m / 2) % a.groups.length]!;
        const author = a.contacts[g.members[Math.floor(m / 2 / a.groups.length) % g.members.length]!]!;
        const skId = `${g.jid}::${author.lid}_1::0`;
        await keys.transaction(async () => {
          const { [skId]: sk } = await keys.get('sender-key', [skId]);
          await keys.set({ 'sender-key': { [skId]: senderKey(a.rnd, sk ? 500 + m : 0) } });
        }, g.jid);
        msg = proto.WebMessageInfo.fromObject({
          key: { remoteJid: g.jid, fromMe: false, id, participant: `${author.lid}@lid`, participantAlt: `${author.number}@s.whatsapp.net` },
          message: { conversation: text() },
          messageTimestamp: 1_700_000_000 + m,
          pushName: author.name.split(' ')[0],
        }) as WAMessage;
      }
      sock.emit('messages.upsert', { messages: [msg], type: 'notify' });
      if (m % 50 === 0) await settle();
    }

    // Sends to groups: which devices hold our sender key, the sessions of every participant's devices at once.
    for (let s = 0; s < o.groupSends; s++) {
      const g = a.groups[s % a.groups.length]!;
      await keys.transaction(async () => {
        const { [g.jid]: memory } = await keys.get('sender-key-memory', [g.jid]);
        const addrs = g.members.flatMap((m) => [sessionAddr(a.contacts[m]!.lid, 0), sessionAddr(a.contacts[m]!.lid, 1)]);
        await keys.get('device-list', g.members.map((m) => a.contacts[m]!.number));
        await keys.get('session', addrs);
        await keys.get('sender-key', [`${g.jid}::${a.own.lid}_1::0`]);
        await keys.set({ 'sender-key': { [`${g.jid}::${a.own.lid}_1::0`]: senderKey(a.rnd) } });
        await keys.set({ 'sender-key-memory': { [g.jid]: { ...(memory ?? {}), [deviceJid(a.contacts[g.members[0]!]!.lid, 1)]: true } } });
      }, g.jid);
    }

    // Everything emitted has gone through the inbound chains.
    const expected = 1 + a.contacts.length + o.messages; // CONNECTED, a contact event each, a message each
    for (let t = 0; counts.events < expected && t < 2_000; t++) await new Promise((r) => setTimeout(r, 5));
    return { session, sock, counts, auth };
  }

  const mem = () => {
    const m = process.memoryUsage();
    return { heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss };
  };
  const fullGc = async () => {
    for (let k = 0; k < 3; k++) {
      gc();
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  // 1. The table as the earlier owners left it (and one more account for the warm-up).
  for (let i = 0; i <= o.sessions; i++) {
    await seed(i, account(i, o));
    if (i % 5 === 0) say(`seeded ${i + 1}/${o.sessions + 1} partitions (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  const seeded = table.stats();
  say(`table: ${seeded.items} items, ${round1(seeded.bytes / MB)} MB (${round1(seeded.bytes / (o.sessions + 1) / MB)} MB per account)`);

  // 2. A warm-up session (its own partition), then the baseline.
  {
    const warm = await replay(o.sessions, account(o.sessions, o));
    await warm.session.stop();
  }
  await new Promise((r) => setTimeout(r, 6_000)); // its address-book save timer, if any
  await fullGc();
  const tableBefore = table.stats();
  const readsBefore = { ...table.counts, items: table.itemsRead };
  const base = mem();
  say(`baseline: heap ${round1(base.heapUsed / MB)} MB, external ${round1(base.external / MB)} MB, rss ${round1(base.rss / MB)} MB`);

  // 3. N busy sessions, all kept alive.
  const live: Awaited<ReturnType<typeof replay>>[] = [];
  const t0 = Date.now();
  for (let i = 0; i < o.sessions; i++) {
    live.push(await replay(i, account(i, o)));
    if ((i + 1) % 5 === 0) say(`${i + 1}/${o.sessions} sessions replayed (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  const replaySeconds = (Date.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 6_000)); // address-book saves (5 s after the last contact burst)
  await fullGc();
  const after = mem();
  const tableAfter = table.stats();
  const tableGrowth = tableAfter.bytes - tableBefore.bytes;
  const reads = Object.fromEntries(
    ['GetCommand', 'BatchGetCommand', 'QueryCommand'].map((k) => [k, round1(((table.counts[k] ?? 0) - ((readsBefore as Record<string, number>)[k] ?? 0)) / o.sessions)]),
  );
  const perSession = (v: number) => round1(v / o.sessions / MB);
  const heap = after.heapUsed - base.heapUsed;
  const external = after.external - base.external;
  const stats: Record<string, number>[] = live.map((l) => l.auth.cacheStats());
  const avg = (xs: number[]) => (xs.length ? Math.round(xs.reduce((s, x) => s + x, 0) / xs.length) : 0);
  const result = {
    generatedAt: new Date().toISOString(),
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGB: Math.round(os.totalmem() / 2 ** 30) },
    store: 'keys read when asked, bounded caches (host/auth-store.ts)',
    account: {
      ...o,
      senderKeys: o.groups * o.groupSize,
      tableMBPerAccount: round1(seeded.bytes / (o.sessions + 1) / MB),
      itemsPerAccount: Math.round(seeded.items / (o.sessions + 1)),
      sessionRecordChars: { mean: avg(sizes.session), min: Math.min(...sizes.session), max: Math.max(...sizes.session) },
      senderKeyChars: { mean: avg(sizes.senderKey), min: Math.min(...sizes.senderKey), max: Math.max(...sizes.senderKey) },
    },
    perSession: {
      retainedMB: perSession(heap + external - Math.max(0, tableGrowth)),
      heapMB: perSession(heap),
      externalMB: perSession(external),
      rssMB: perSession(after.rss - base.rss),
      tableGrowthMB: perSession(tableGrowth),
      eventsEmitted: avg(live.map((l) => l.counts.events)),
      eventsExpected: 1 + o.contacts + o.messages,
      tableReadsPerSession: reads,
      // The most any one session's store held.
      authStoreCaches: Object.fromEntries(Object.keys(stats[0] ?? {}).map((k) => [k, Math.max(...stats.map((s) => s[k]!))])),
      replaySeconds: round1(replaySeconds / o.sessions),
    },
    process: {
      baselineMB: { heap: round1(base.heapUsed / MB), external: round1(base.external / MB), rss: round1(base.rss / MB) },
      withSessionsMB: { heap: round1(after.heapUsed / MB), external: round1(after.external / MB), rss: round1(after.rss / MB) },
      tableMBAtBaseline: round1(tableBefore.bytes / MB),
    },
    durationSeconds: Math.round((Date.now() - started) / 1000),
  };
  say(`RESULT ${JSON.stringify(result)}`);
  // Kept alive until here, so the figure is what N running sessions hold.
  for (const l of live) await l.session.stop();
  process.exit(0);
}

if (process.argv.includes('--child')) {
  child().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
