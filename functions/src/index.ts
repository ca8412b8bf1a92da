/**
 * Public entry `@balcao/functions`: what the session host (another process, ECS in the cloud) uses
 * of the platform — the environment contract, the AWS clients, table access and keys, and the
 * message lookup its send path needs. Nothing else of functions/ is importable from outside
 * (package exports, and the lint boundary in eslint.config.js).
 */
export { env } from './core/env.js';
export { dynamo, s3Client, sqsClient } from './core/aws.js';
export { getItem, queryIndexAll } from './core/db.js';
export * from './table/keys.js';
export type * from './table/items.js';
export { findMessage } from './services/message-lookup.js';
