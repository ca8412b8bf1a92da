import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { NetEvent } from './protocol.js';
import { NUMBER_RE, SandboxError } from './validation.js';

/**
 * What the network remembers between runs: the accounts (links, conversations, address books,
 * calls, events the device has not acknowledged) and the phones that are not on WhatsApp. Kept in
 * `state.json` so a second `npm start` finds the same links and conversations.
 */

export interface ChatMessage {
  id: string;
  /** true = sent by the connection (our side); false = sent by the customer. */
  fromMe: boolean;
  body: string;
  mediaType?: string;
  fileName?: string;
  mimetype?: string;
  /** File name under `media/<connectionId>/`. */
  mediaFile?: string;
  size?: number;
  ptt?: boolean;
  vcard?: string;
  ack: number;
  edited: boolean;
  deleted: boolean;
  reactions: { emoji: string; fromMe: boolean }[];
  quotedId?: string;
  timestamp: number;
}

export interface Chat {
  peer: string;
  /** The customer's push name, as last sent. */
  name?: string;
  messages: ChatMessage[];
  /** What the connection last showed in this chat ("typing…"), and when (ms). */
  presence?: { state: 'composing' | 'recording' | 'paused'; at: number };
}

export interface CallRecord {
  id: string;
  from: string;
  isVideo: boolean;
  timestamp: number;
  status: 'ringing' | 'rejected';
}

export interface Account {
  id: number;
  linked: boolean;
  number?: string;
  token?: string;
  chats: Record<string, Chat>;
  contacts: { number: string; name: string }[];
  calls: CallRecord[];
  /** Events the device has not acknowledged yet, in order. */
  pending: { seq: number; at: number; event: NetEvent }[];
  seq: number;
}

interface State {
  version: 1;
  epoch: string;
  accounts: Record<string, Account>;
  phones: Record<string, { onWhatsApp: boolean }>;
}

export class NetworkStore {
  private readonly state: State;
  private readonly file: string;
  private saveTimer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  /** Callers waiting for their change to be on disk (see `durable`). */
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(
    dir: string,
    private readonly saveDelayMs: number,
    private readonly log: (line: string) => void,
  ) {
    this.file = path.join(dir, 'state.json');
    this.state = this.load();
  }

  private load(): State {
    try {
      const s = JSON.parse(fs.readFileSync(this.file, 'utf8')) as State;
      if (s.version === 1 && s.accounts && s.epoch) return { ...s, phones: s.phones ?? {} };
      this.log(`state file ${this.file} has an unknown shape: starting empty`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`cannot read ${this.file} (${(e as Error).message}): starting empty`);
    }
    return { version: 1, epoch: crypto.randomBytes(4).toString('hex'), accounts: {}, phones: {} };
  }

  /** Debounced: bursts of messages cost one write. */
  save() {
    if (this.saveTimer || this.closed) return;
    this.saveTimer = setTimeout(() => this.flush(), this.saveDelayMs);
  }

  /**
   * Resolves once every change made so far is on disk. WhatsApp's servers acknowledge a message only
   * once they stored it (issue 16 §1): the customers' API and the device's requests answer after
   * this, so a killed stack never loses what it acknowledged. Changes of one turn of the event loop
   * share one write.
   */
  durable(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.immediate ??= setImmediate(() => this.flush());
    });
  }

  /** Writes now (atomically: a crash mid-write leaves the previous file). */
  flush() {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    const waiters = this.waiters.splice(0);
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.state));
    fs.renameSync(tmp, this.file);
    for (const resolve of waiters) resolve();
  }

  /** The last write; later changes are not saved. */
  close() {
    this.flush();
    this.closed = true;
  }

  get stopped(): boolean {
    return this.closed;
  }

  /** Names this state in every event, so event ids stay unique if the state is ever wiped. */
  get epoch(): string {
    return this.state.epoch;
  }

  // ---------------------------------------------------------------- accounts

  accountIds(): number[] {
    return Object.keys(this.state.accounts).map(Number);
  }

  /** The account of a connection id, created on first use. */
  account(id: number): Account {
    return (this.state.accounts[id] ??= { id, linked: false, chats: {}, contacts: [], calls: [], pending: [], seq: 0 });
  }

  findAccount(id: number): Account | undefined {
    return this.state.accounts[id];
  }

  linkedAccount(id: number): Account {
    const a = this.state.accounts[id];
    if (!a?.linked) throw new SandboxError(409, `connection ${id} is not linked to a phone number: scan its QR code first`);
    return a;
  }

  chat(a: Account, peer: string): Chat {
    return (a.chats[peer] ??= { peer, messages: [] });
  }

  findMessage(a: Account, id: string): { chat: Chat; message: ChatMessage } | undefined {
    for (const chat of Object.values(a.chats)) {
      const message = chat.messages.find((m) => m.id === id);
      if (message) return { chat, message };
    }
    return undefined;
  }

  // ---------------------------------------------------------------- phones

  onWhatsApp(number: string, self?: Account) {
    if (!NUMBER_RE.test(number)) return false;
    if (self?.number === number) return true;
    return this.state.phones[number]?.onWhatsApp !== false;
  }

  setOnWhatsApp(number: string, onWhatsApp: boolean) {
    if (onWhatsApp) delete this.state.phones[number];
    else this.state.phones[number] = { onWhatsApp: false };
    this.save();
  }
}
