import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import type { QueuePair } from './data-stack.js';
import { BalcaoFunction, type RuntimeContract } from './function.js';

export interface QueueWorkerProps {
  pair: QueuePair;
  contract: RuntimeContract;
}

/**
 * The consumer of one manifest queue: `functions/src/workers/<worker>.ts` fed by an event-source
 * mapping with the manifest's batch size and partial batch responses (the workers return
 * `batchItemFailures`, so one bad message is retried alone and ends in the DLQ after maxReceiveCount).
 */
export class QueueWorker extends Construct {
  readonly fn: BalcaoFunction;

  constructor(scope: Construct, id: string, props: QueueWorkerProps) {
    super(scope, id);
    const { def, queue } = props.pair;
    this.fn = new BalcaoFunction(this, 'Worker', {
      entry: `functions/src/workers/${def.worker}.ts`,
      description: `Balcão worker ${def.worker} (queue ${def.name})`,
      contract: props.contract,
      // Lambda must finish well inside the visibility timeout, or a message in flight reappears.
      timeout: Duration.seconds(Math.max(3, Math.floor(def.visibilityTimeoutSeconds / 3))),
    });
    this.fn.fn.addEventSource(
      new SqsEventSource(queue, {
        batchSize: def.batchSize,
        reportBatchItemFailures: true,
      }),
    );
  }
}
