import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TablePort } from '../../src/core/ports.js';
import type { DirectQueryInput, DirectQueryOutput } from '../../src/core/direct-query.js';
import { TABLE_DEFINITION } from '../../src/core/table-definition.js';
import { compareValues, ExpressionError, RequestExpressions, type Doc, type ExpressionInput } from './expressions.js';

/**
 * The single table in memory, for unit tests of the domain against its ports: the document
 * client's commands the services send (Get, Put, Update, Delete, Query, Scan, BatchGet,
 * BatchWrite, TransactWrite) with DynamoDB's semantics — conditional writes, transactions that
 * apply all or nothing, the four GSIs, pages by Limit and ExclusiveStartKey, the SDK's exception
 * classes. `memory-table.test.ts` holds it to DynamoDB Local's answers.
 */
type Key = { PK: string; SK: string };
type IndexDef = { name: string; pk: string; sk: string };

const TABLE_INDEX: IndexDef = { name: '', pk: TABLE_DEFINITION.partitionKey, sk: TABLE_DEFINITION.sortKey };
const INDEXES: IndexDef[] = TABLE_DEFINITION.globalSecondaryIndexes.map((g) => ({ name: g.indexName, pk: g.partitionKey, sk: g.sortKey }));

const idOf = (k: { PK?: unknown; SK?: unknown }) => `${String(k.PK)}\u0000${String(k.SK)}`;
const metadata = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };

function conditionFailed(item?: Doc) {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: metadata, Item: item as never });
}

function validation(message: string) {
  const err = new ExpressionError(message);
  return Object.assign(err, { $metadata: metadata, $fault: 'client' });
}

/** The document client's option removeUndefinedValues: undefined attributes are not stored. */
function stripUndefined<T>(v: T): T {
  if (Array.isArray(v)) return v.map(stripUndefined) as T;
  if (v && typeof v === 'object' && !(v instanceof Set) && !(v instanceof Uint8Array)) {
    const out: Doc = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = stripUndefined(x);
    return out as T;
  }
  return v;
}

type Input = Record<string, unknown> & {
  Key?: Key;
  Item?: Doc;
  ReturnValues?: string;
  IndexName?: string;
  Limit?: number;
  ExclusiveStartKey?: Doc;
  ScanIndexForward?: boolean;
  Select?: string;
};

export class MemoryTable implements TablePort {
  private readonly items = new Map<string, Doc>();
  /** Every command this table answered, by name (for tests that count calls). */
  readonly calls: string[] = [];

  /** A copy of every item (tests inspect what was written). */
  all(): Doc[] {
    return [...this.items.values()].map((i) => structuredClone(i));
  }

  get(key: Key): Doc | undefined {
    const item = this.items.get(idOf(key));
    return item && structuredClone(item);
  }

  send = (async (command: { constructor: { name: string }; input: Input }) => {
    const name = command.constructor.name.replace(/Command$/, '');
    this.calls.push(name);
    const input = command.input;
    switch (name) {
      case 'Get':
        return this.getItem(input);
      case 'Put':
        return this.putItem(input);
      case 'Update':
        return this.updateItem(input);
      case 'Delete':
        return this.deleteItem(input);
      case 'Query':
        return this.queryItems(input);
      case 'Scan':
        return this.scanItems(input);
      case 'BatchGet':
        return this.batchGet(input);
      case 'BatchWrite':
        return this.batchWrite(input);
      case 'TransactWrite':
        return this.transactWrite(input);
      default:
        throw validation(`The in-memory table does not answer ${command.constructor.name}`);
    }
  }) as unknown as TablePort['send'];

  query = async (input: DirectQueryInput): Promise<DirectQueryOutput> => {
    this.calls.push('Query');
    return this.queryItems(input as Input);
  };

  private expressions(input: Input) {
    try {
      return new RequestExpressions(input as ExpressionInput);
    } catch (err) {
      throw err instanceof ExpressionError ? validation(err.message) : err;
    }
  }

  private checkKey(key: Doc | undefined): Key {
    if (!key || typeof key.PK !== 'string' || typeof key.SK !== 'string' || !key.PK || !key.SK) {
      throw validation('One or more parameter values were invalid: the key must have a non-empty string PK and SK');
    }
    return { PK: key.PK, SK: key.SK };
  }

  private getItem(input: Input) {
    const key = this.checkKey(input.Key);
    const item = this.items.get(idOf(key));
    return { Item: item ? this.expressions(input).project(structuredClone(item)) : undefined, $metadata: {} };
  }

  /** The write of one Put, Update or Delete, checked but not applied (transactions check all first). */
  private plan(kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck', input: Input): { id: string; ok: boolean; before?: Doc; after?: Doc; touched?: Set<string> } {
    const key = this.checkKey(kind === 'Put' ? input.Item : input.Key);
    const id = idOf(key);
    const before = this.items.get(id);
    const ex = this.expressions(input);
    const ok = ex.test('ConditionExpression', before);
    if (kind === 'ConditionCheck') return { id, ok, before };
    if (kind === 'Delete') return { id, ok, before, after: undefined };
    if (kind === 'Put') return { id, ok, before, after: stripUndefined(structuredClone(input.Item!)) };
    let updated: { item: Doc; touched: Set<string> };
    try {
      updated = ex.update(before ?? { ...key });
    } catch (err) {
      // An update that cannot apply is refused, but a failed condition is reported first.
      if (!ok) return { id, ok, before };
      throw err instanceof ExpressionError ? validation(err.message) : err;
    }
    if (updated.touched.has('PK') || updated.touched.has('SK')) throw validation('Cannot update attribute PK or SK. This attribute is part of the key');
    return { id, ok, before, after: updated.item, touched: updated.touched };
  }

  private apply(p: { id: string; after?: Doc }) {
    if (p.after) this.items.set(p.id, p.after);
    else this.items.delete(p.id);
  }

  private answer(input: Input, p: { before?: Doc; after?: Doc; touched?: Set<string> }) {
    const rv = input.ReturnValues ?? 'NONE';
    let Attributes: Doc | undefined;
    if (rv === 'ALL_OLD') Attributes = p.before;
    else if (rv === 'ALL_NEW') Attributes = p.after;
    else if (rv === 'UPDATED_NEW' || rv === 'UPDATED_OLD') {
      const from = rv === 'UPDATED_NEW' ? p.after : p.before;
      Attributes = from && Object.fromEntries([...(p.touched ?? [])].filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));
    }
    return { Attributes: Attributes && structuredClone(Attributes), $metadata: {} };
  }

  private write(kind: 'Put' | 'Update' | 'Delete', input: Input) {
    const p = this.plan(kind, input);
    if (!p.ok) throw conditionFailed();
    this.apply(p);
    return this.answer(input, p);
  }

  private putItem(input: Input) {
    return this.write('Put', input);
  }
  private updateItem(input: Input) {
    return this.write('Update', input);
  }
  private deleteItem(input: Input) {
    return this.write('Delete', input);
  }

  /** Items of the table or of a GSI (only those carrying its key attributes), in key order. */
  private ordered(index: IndexDef): Doc[] {
    const rows = [...this.items.values()].filter((i) => typeof i[index.pk] === 'string' && typeof i[index.sk] === 'string');
    return rows.sort((a, b) => compareValues(a[index.pk], b[index.pk]) || compareValues(a[index.sk], b[index.sk]) || compareValues(a.PK, b.PK) || compareValues(a.SK, b.SK) || 0);
  }

  private page(rows: Doc[], index: IndexDef, input: Input, test: (item: Doc) => boolean) {
    let start = 0;
    if (input.ExclusiveStartKey) {
      const k = input.ExclusiveStartKey;
      const at = rows.findIndex((r) => r.PK === k.PK && r.SK === k.SK);
      start = at >= 0 ? at + 1 : rows.length;
    }
    const limit = input.Limit ?? Infinity;
    const evaluated = rows.slice(start, start + limit);
    const hitLimit = evaluated.length === limit && limit !== Infinity;
    const last = evaluated[evaluated.length - 1];
    const ex = this.expressions(input);
    const kept = evaluated.filter((i) => test(i) && ex.test('FilterExpression', i));
    const LastEvaluatedKey = hitLimit && last ? Object.fromEntries([...new Set(['PK', 'SK', index.pk, index.sk])].map((k) => [k, last[k]])) : undefined;
    return {
      Items: input.Select === 'COUNT' ? undefined : kept.map((i) => ex.project(structuredClone(i))),
      Count: kept.length,
      ScannedCount: evaluated.length,
      LastEvaluatedKey,
      $metadata: {},
    };
  }

  private queryItems(input: Input) {
    const index = input.IndexName ? INDEXES.find((i) => i.name === input.IndexName) : TABLE_INDEX;
    if (!index) throw validation(`The table does not have the specified index: ${input.IndexName}`);
    if (!input.KeyConditionExpression) throw validation('Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.');
    const ex = this.expressions(input);
    let rows = this.ordered(index).filter((i) => ex.test('KeyConditionExpression', i));
    if (input.ScanIndexForward === false) rows = rows.reverse();
    return this.page(rows, index, input, () => true);
  }

  private scanItems(input: Input) {
    return this.page(this.ordered(TABLE_INDEX), TABLE_INDEX, input, () => true);
  }

  private batchGet(input: Input) {
    const requests = input.RequestItems as Record<string, { Keys: Key[]; ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> }>;
    const Responses: Record<string, Doc[]> = {};
    for (const [tableName, req] of Object.entries(requests)) {
      if (req.Keys.length > 100) throw validation('Too many items requested for the BatchGetItem call');
      Responses[tableName] = req.Keys.map((k) => this.getItem({ Key: k, ProjectionExpression: req.ProjectionExpression, ExpressionAttributeNames: req.ExpressionAttributeNames }).Item).filter((i): i is Doc => !!i);
    }
    return { Responses, UnprocessedKeys: {}, $metadata: {} };
  }

  private batchWrite(input: Input) {
    const requests = input.RequestItems as Record<string, { PutRequest?: { Item: Doc }; DeleteRequest?: { Key: Key } }[]>;
    const all = Object.values(requests).flat();
    if (all.length > 25) throw validation('Too many items requested for the BatchWriteItem call');
    for (const r of all) {
      if (r.PutRequest) this.apply({ id: idOf(this.checkKey(r.PutRequest.Item)), after: stripUndefined(structuredClone(r.PutRequest.Item)) });
      else if (r.DeleteRequest) this.apply({ id: idOf(this.checkKey(r.DeleteRequest.Key)) });
    }
    return { UnprocessedItems: {}, $metadata: {} };
  }

  private transactWrite(input: Input) {
    const list = input.TransactItems as Record<string, Input>[];
    if (list.length > 100) throw validation('Member must have length less than or equal to 100');
    const plans = list.map((entry) => {
      const [kind, op] = Object.entries(entry).find(([, v]) => v) as ['Put' | 'Update' | 'Delete' | 'ConditionCheck', Input];
      return this.plan(kind, op);
    });
    if (new Set(plans.map((p) => p.id)).size !== plans.length) throw validation('Transaction request cannot include multiple operations on one item');
    if (plans.some((p) => !p.ok)) {
      throw new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${plans.map((p) => (p.ok ? 'None' : 'ConditionalCheckFailed')).join(', ')}]`,
        $metadata: metadata,
        CancellationReasons: plans.map((p) => (p.ok ? { Code: 'None' } : { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' })),
      });
    }
    // A ConditionCheck plans no write (no `after` at all); a Delete plans `after: undefined`.
    for (const p of plans) if ('after' in p) this.apply(p);
    return { $metadata: {} };
  }
}
