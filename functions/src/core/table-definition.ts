/**
 * The single table's shape, shared by the CDK data stack and the local stack (so both create the
 * same keys and indexes). Keys are overloaded strings; see docs/data-model.md for what lives where.
 */
export const TABLE_DEFINITION = {
  partitionKey: 'PK',
  sortKey: 'SK',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    { indexName: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
    // Ticket timers (auto-transfer, inactivity close): sparse, per connection, by last activity.
    { indexName: 'GSI4', partitionKey: 'GSI4PK', sortKey: 'GSI4SK' },
  ],
} as const;
