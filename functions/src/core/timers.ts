import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { toQueueBody } from '@balcao/shared';
import type { JobQueues, Timers } from './ports.js';
import type { TimerQueue } from '../workers/manifest.js';

/**
 * The two adapters of the timers port (core/ports.ts). Both deliver a timer as one job on its queue,
 * the same body a sweep would enqueue, so the worker cannot tell them apart and either may be late,
 * early or repeated: every job re-checks the item it acts on.
 */

export interface SchedulerTimersConfig {
  group: string;
  roleArn: string;
  queueArn: (queue: TimerQueue) => string;
}

/**
 * EventBridge Scheduler: one one-time `at()` schedule per name, deleted by Scheduler once it has
 * fired. `at()` has a minute's precision (it fires within the minute it names), so the minute is
 * floored: the job arrives at most a minute early, never late, and the worker waits the rest
 * with an SQS delay to the second.
 */
export function schedulerTimers(client: SchedulerClient, config: SchedulerTimersConfig): Timers {
  return {
    async set(name, at, queue, body) {
      const minute = new Date(Math.floor(at / 60_000) * 60_000).toISOString().slice(0, 19);
      const input: CreateScheduleCommandInput = {
        Name: name,
        GroupName: config.group,
        ScheduleExpression: `at(${minute})`,
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: {
          Arn: config.queueArn(queue),
          RoleArn: config.roleArn,
          Input: toQueueBody(body),
          // A delivery Scheduler could not make within an hour is left to the sweeper.
          RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 },
        },
      };
      try {
        await client.send(new CreateScheduleCommand(input));
      } catch (err) {
        // The item's timer exists (moved, or saved twice): same name, new time.
        if (!(err instanceof ConflictException)) throw err;
        await client.send(new UpdateScheduleCommand(input));
      }
    },
    async clear(name) {
      try {
        await client.send(new DeleteScheduleCommand({ Name: name, GroupName: config.group }));
      } catch (err) {
        if (!(err instanceof ResourceNotFoundException)) throw err;
      }
    },
  };
}

/** setTimeout's longest wait; a later timer is left to the sweeper's look-ahead. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The one-machine stack's timers: in the process, lost when it stops. Nothing is lost with them:
 * the item stays due in the table and the minute sweeper hands it over.
 */
export function processTimers(jobs: () => JobQueues, onError: (err: unknown, name: string) => void): Timers & { pending(): number } {
  const waiting = new Map<string, NodeJS.Timeout>();
  const clear = (name: string) => {
    clearTimeout(waiting.get(name));
    waiting.delete(name);
  };
  return {
    async set(name, at, queue, body) {
      clear(name);
      const wait = Math.max(0, at - Date.now());
      if (wait > MAX_TIMEOUT_MS) return;
      const timer = setTimeout(() => {
        waiting.delete(name);
        jobs()
          .enqueue(queue, [body])
          .then((failed) => failed && onError(new Error('timer job not enqueued'), name), (err) => onError(err, name));
      }, wait);
      // A pending timer never keeps the process alive.
      timer.unref();
      waiting.set(name, timer);
    },
    async clear(name) {
      clear(name);
    },
    pending: () => waiting.size,
  };
}
