import { Aws, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { TABLE_DEFINITION } from '@balcao/functions/manifest';
import type { BalcaoFunction } from './function.js';
import { bucketObjectsArn } from './names.js';
import { ackWildcardResource } from './nag.js';

/*
 * Least-privilege building blocks shared by the stacks. Table access names the table and each GSI
 * (no `index/*` wildcard); there is deliberately no dynamodb:Scan (DESIGN §3: lists are served by keys
 * and GSIs, never by Scan).
 */

const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

export function allowTable(fn: BalcaoFunction | { allow: BalcaoFunction['allow'] }, table: ITable, mode: 'read' | 'readwrite') {
  const indexes = TABLE_DEFINITION.globalSecondaryIndexes.map((g) => `${table.tableArn}/index/${g.indexName}`);
  fn.allow(mode === 'read' ? TABLE_READ : [...TABLE_READ, ...TABLE_WRITE], [table.tableArn, ...indexes]);
}

/** Media objects by key; the bucket ARN is built from its deterministic name (see names.ts). */
export function allowMedia(fn: BalcaoFunction, prefix: string, mode: 'read' | 'readwrite') {
  const objects = bucketObjectsArn(prefix, 'media');
  fn.allow(mode === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], [objects]);
  ackWildcardResource(fn, objects, 'Media keys are generated per company and file at run time; access is to objects of this one bucket.');
}

export function allowSend(fn: BalcaoFunction, queues: IQueue[]) {
  if (queues.length) fn.allow(['sqs:SendMessage'], queues.map((q) => q.queueArn));
}

/**
 * Creating, moving and deleting the one-time timers (functions/src/core/timers.ts) in the timers'
 * schedule group, and handing Scheduler the role that puts their jobs on the queues.
 */
export function allowTimers(fn: BalcaoFunction, data: { timerGroup: { scheduleGroupName: string }; timerRole: { roleArn: string } }) {
  const schedules = `arn:${Aws.PARTITION}:scheduler:${Stack.of(fn).region}:${Stack.of(fn).account}:schedule/${data.timerGroup.scheduleGroupName}/*`;
  fn.allow(['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'], [schedules]);
  ackWildcardResource(fn, schedules, 'Timers are named per scheduled message or campaign at run time; the grant is limited to the timers\' own schedule group.');
  fn.role.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['iam:PassRole'], resources: [data.timerRole.roleArn], conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } }),
  );
}

/** The Cognito admin calls of functions/src/core/cognito.ts (user creation by the API, e-mail change, deletion). */
export const COGNITO_ADMIN_ACTIONS = [
  'cognito-idp:AdminCreateUser',
  'cognito-idp:AdminDeleteUser',
  'cognito-idp:AdminGetUser',
  'cognito-idp:AdminSetUserPassword',
  'cognito-idp:AdminUpdateUserAttributes',
  'cognito-idp:AdminUserGlobalSignOut',
  'cognito-idp:AdminDisableUser',
  'cognito-idp:AdminEnableUser',
];

/**
 * `execute-api:ManageConnections` on the @connections of one WebSocket stage (POST to send, GET to
 * inspect, DELETE to drop a connection).
 */
export function allowManageConnections(fn: BalcaoFunction, apiId: string, stageName: string) {
  const arn = `arn:${Aws.PARTITION}:execute-api:${Stack.of(fn).region}:${Stack.of(fn).account}:${apiId}/${stageName}/*/@connections/*`;
  fn.allow(['execute-api:ManageConnections'], [arn]);
  ackWildcardResource(fn, arn, 'Connection ids are only known at run time; the grant is limited to the @connections of this one stage.');
}
