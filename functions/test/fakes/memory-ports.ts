import type { OutboundCommand, RealtimeMessage } from '@balcao/shared';
import { withPorts, type Ports } from '../../src/core/ports.js';
import { MemoryTable } from './memory-table.js';
import { localSecretBox } from '../../src/core/secrets.js';

/**
 * Every port of the domain in memory (core/ports.ts): the table, what was published, the commands
 * and jobs handed over, the media objects, a clock the test moves and ids in sequence. `run` runs a
 * use case against them.
 */
export class MemoryPorts implements Ports {
  readonly table = new MemoryTable();
  readonly published: RealtimeMessage[] = [];
  readonly sentCommands: OutboundCommand[] = [];
  readonly enqueued: { queue: string; body: object; delaySeconds?: number; group?: string; dedupId?: string }[] = [];
  readonly objects = new Map<string, { data: Uint8Array; contentType: string }>();
  time = Date.parse('2026-03-02T12:00:00.000Z');
  private nextId = 0;

  readonly publisher = { publish: async (messages: RealtimeMessage[]) => void this.published.push(...structuredClone(messages)) };
  /** Set to make the command queue refuse sends (an unreachable queue). */
  commandsDown = false;
  readonly commands = {
    send: async (command: OutboundCommand) => {
      if (this.commandsDown) throw new Error('command queue unreachable');
      this.sentCommands.push(structuredClone(command));
    },
  };
  readonly jobs = {
    enqueue: async (queue: string, bodies: object[], delaySeconds?: number) => {
      this.enqueued.push(...bodies.map((body) => ({ queue, body, delaySeconds })));
      return 0;
    },
    enqueueOrdered: async (queue: string, body: object, group: string, dedupId: string) => {
      if (this.enqueued.some((e) => e.queue === queue && e.dedupId === dedupId)) return;
      this.enqueued.push({ queue, body, group, dedupId });
    },
    retryLater: async (queue: string, receiptHandle: string, seconds: number) => void this.retries.push({ queue, receiptHandle, seconds }),
  };
  /** The timers set and not cleared, by name (core/ports.ts Timers). */
  readonly timerSet = new Map<string, { at: number; queue: string; body: object }>();
  readonly timers = {
    set: async (name: string, at: number, queue: string, body: object) => void this.timerSet.set(name, { at, queue, body: structuredClone(body) }),
    clear: async (name: string) => void this.timerSet.delete(name),
  };
  readonly retries: { queue: string; receiptHandle: string; seconds: number }[] = [];
  readonly secrets = localSecretBox(new Uint8Array(32).fill(7));
  readonly media = {
    put: async (key: string, data: Uint8Array, contentType: string) => void this.objects.set(key, { data: new Uint8Array(data), contentType }),
    remove: async (key: string) => void this.objects.delete(key),
    uploadUrl: async (key: string) => `memory://upload/${key}`,
    readUrl: async (key: string) => `memory://read/${key}`,
    head: async (key: string) => {
      const o = this.objects.get(key);
      return o && { size: o.data.length, contentType: o.contentType };
    },
    readStart: async (key: string, bytes: number) => this.objects.get(key)!.data.subarray(0, bytes),
    copy: async (from: string, to: string, contentType: string) => void this.objects.set(to, { data: this.objects.get(from)!.data, contentType }),
  };
  readonly clock = { now: () => this.time };
  readonly ids = { uuid: () => `00000000-0000-4000-8000-${String(++this.nextId).padStart(12, '0')}` };

  run<T>(fn: () => Promise<T>): Promise<T> {
    return withPorts(this, fn);
  }

  /** Forgets what was published, sent and enqueued so far (a test starts from a built world). */
  forgetRecords() {
    this.published.length = 0;
    this.sentCommands.length = 0;
    this.enqueued.length = 0;
  }

  advance(ms: number) {
    this.time += ms;
  }

  /** The events published under `event` (e.g. `company-1-ticket`). */
  events(event: string) {
    return this.published.filter((m) => m.event === event).map((m) => m.data as Record<string, unknown>);
  }
}
