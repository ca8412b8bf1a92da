/** Machine context for the figures: load averages and CPU seconds of the stack's processes. */
import fs from 'node:fs';
import os from 'node:os';

const TICK = 100; // USER_HZ on Linux

function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK; // utime + stime
  } catch {
    return 0;
  }
}

function children(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const list = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (list) out.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    /* gone */
  }
  return out;
}

const comm = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
};

/**
 * CPU seconds so far: this process (gateway, WebSocket gateway, sandbox network), the session host,
 * DynamoDB Local (java) and the other Node children (the workers, a part's load process).
 */
export function cpuSnapshot(sessionHostPid: number) {
  let java = 0;
  let otherNode = 0;
  const stack = [...children(process.pid)];
  while (stack.length) {
    const pid = stack.pop()!;
    if (pid === sessionHostPid) continue;
    if (comm(pid) === 'java') java += cpuSeconds(pid);
    else otherNode += cpuSeconds(pid);
    stack.push(...children(pid));
  }
  return { benchProcess: cpuSeconds(process.pid), sessionHost: cpuSeconds(sessionHostPid), dynamodbLocal: java, otherChildren: otherNode, at: Date.now() };
}
export type CpuSnapshot = ReturnType<typeof cpuSnapshot>;

export function cpuDelta(a: CpuSnapshot, b: CpuSnapshot) {
  const r = (v: number) => Math.round(v * 10) / 10;
  const wall = (b.at - a.at) / 1000;
  return {
    unit: 'CPU seconds (utime + stime) over the part',
    wallSeconds: r(wall),
    benchProcess: r(b.benchProcess - a.benchProcess),
    sessionHost: r(b.sessionHost - a.sessionHost),
    dynamodbLocal: r(b.dynamodbLocal - a.dynamodbLocal),
    // A child that exited during the part (a load process) takes its seconds with it.
    otherChildren: r(Math.max(0, b.otherChildren - a.otherChildren)),
  };
}

export const loadAverage = () => os.loadavg().map((v) => Math.round(v * 100) / 100);

/**
 * Milliseconds for a fixed CPU workload in this process: JSON of 2000 ticket-like objects written
 * and read 20 times (the kind of work the stack does), the median of five. This VM's speed moves
 * by tens of percent over minutes (a shared host), so a run's figures are read beside its probes.
 */
export function cpuProbe(): number {
  const items = Array.from({ length: 2000 }, (_, i) => ({ id: i, uuid: `u-${i}-${'x'.repeat(30)}`, status: 'pending', unread: i % 7, lastMessage: `mensagem ${i} com algum texto`, tags: [i % 3, i % 5], contact: { id: i * 3, name: `Cliente ${i}`, number: `55119${String(i).padStart(8, '0')}` } }));
  const once = () => {
    const t0 = performance.now();
    let n = 0;
    for (let k = 0; k < 20; k++) n += (JSON.parse(JSON.stringify(items)) as unknown[]).length;
    if (n !== 40_000) throw new Error('cpu probe');
    return performance.now() - t0;
  };
  once(); // compiled first
  const runs = Array.from({ length: 5 }, once).sort((a, b) => a - b);
  return Math.round(runs[2]); // the median of five
}
