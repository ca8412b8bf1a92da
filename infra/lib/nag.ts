import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
// Not in cdk-nag's index, but it is the function the IAM5 rule uses to name its findings; using it
// keeps our acknowledgment ids identical to what the rule reports.
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';

/** Acknowledge one cdk-nag rule (or one finding `Rule[finding]`) on a construct and its children. */
export function ack(scope: IConstruct, id: string, reason: string) {
  Validations.of(scope).acknowledge({ id: id.startsWith('AwsSolutions-') ? id : `AwsSolutions-${id}`, reason });
}

/**
 * Acknowledge the IAM5 finding for one wildcard resource (e.g. the objects of a bucket). The id is
 * computed from the resource expression exactly as cdk-nag flattens it.
 */
export function ackWildcardResource(scope: IConstruct, resource: string, reason: string) {
  const flat = flattenCfnReference(Stack.of(scope).resolve(resource));
  ack(scope, `IAM5[Resource::${flat}]`, reason);
}

export function ackWildcardAction(scope: IConstruct, action: string, reason: string) {
  ack(scope, `IAM5[Action::${action}]`, reason);
}
