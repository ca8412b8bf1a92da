/**
 * Public entry `@balcao/functions/manifest`: what the cloud app (infra/lib) and the local stack read
 * to wire the functions — the route table, the queues and their workers, the table's definition.
 * Pure data: importing it loads no AWS client and no service.
 */
export { routeHandlers, routeKey, routes, type RouteDef } from './routes.js';
export { queues, SHARDS, SWEEPER, TIMER_QUEUES, timerQueueArnEnv, type QueueDef, type TimerQueue } from './workers/manifest.js';
export { TABLE_DEFINITION } from './core/table-definition.js';
