import { putItem } from '../../src/core/db.js';
import { keys } from '../../src/table/keys.js';
import type { MemoryPorts } from './memory-ports.js';

/**
 * The session host's part of number checks on in-memory ports: answers `checkNumber` and
 * `checkNumbers` questions as the sandbox does, every number on WhatsApp except those in `absent`.
 * Counts the `checkNumbers` questions.
 */
export function fakePhone(ports: MemoryPorts, absent: Set<string>) {
  const answered = new Set<string>();
  let questions = 0;
  const timer = setInterval(() => {
    for (const c of ports.sentCommands) {
      if (c.type !== 'rpc' || answered.has(c.rpcId) || c.call.op === 'addressBook') continue;
      answered.add(c.rpcId);
      const answer =
        c.call.op === 'checkNumbers'
          ? (questions++, { op: 'checkNumbers', results: c.call.numbers.map((number) => ({ number, exists: !absent.has(number) })) })
          : { op: 'checkNumber', exists: !absent.has(c.call.number) };
      void ports.run(() => putItem({ ...keys.rpc(c.rpcId), entity: 'rpc', status: 'done', answer }));
    }
  }, 5);
  return { stop: () => clearInterval(timer), questions: () => questions };
}
