/**
 * DynamoDB's expression language (conditions, key conditions, filters, updates, projections) over
 * plain document items, as the in-memory table of the unit tests needs it. It follows the
 * documented grammar and comparison rules: numbers by value, strings by their UTF-8 bytes, a
 * comparison with a missing attribute or another type is false (`<>` true); unused names or values are refused
 * as DynamoDB refuses them. `memory-table.test.ts` runs the same cases against DynamoDB Local.
 */
export type Doc = Record<string, unknown>;
export type Names = Record<string, string> | undefined;
export type Values = Record<string, unknown> | undefined;

export class ExpressionError extends Error {
  override name = 'ValidationException';
}

type Token = { kind: 'name' | 'value' | 'ident' | 'op' | 'num'; text: string };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(#[A-Za-z0-9_]+)|(:[A-Za-z0-9_]+)|(<>|<=|>=|[=<>(),+\-.[\]])|([A-Za-z_][A-Za-z0-9_]*)|(\d+))/y;
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) throw new ExpressionError(`Invalid expression near "${src.slice(pos, pos + 20)}"`);
    pos = re.lastIndex;
    if (m[1]) tokens.push({ kind: 'name', text: m[1] });
    else if (m[2]) tokens.push({ kind: 'value', text: m[2] });
    else if (m[3]) tokens.push({ kind: 'op', text: m[3] });
    else if (m[4]) tokens.push({ kind: 'ident', text: m[4] });
    else tokens.push({ kind: 'num', text: m[5] });
  }
  return tokens;
}

/** One path element: an attribute name or a list index. */
type Path = (string | number)[];

/** Parses and evaluates one expression; records which names and values it used. */
class Reader {
  private i = 0;
  readonly usedNames = new Set<string>();
  readonly usedValues = new Set<string>();
  private readonly tokens: Token[];
  constructor(
    src: string,
    private readonly names: Names,
    private readonly values: Values,
  ) {
    this.tokens = tokenize(src);
  }

  get done() {
    return this.i >= this.tokens.length;
  }
  peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }
  isWord(word: string, offset = 0) {
    const t = this.peek(offset);
    return t?.kind === 'ident' && t.text.toUpperCase() === word;
  }
  isOp(op: string) {
    const t = this.peek();
    return t?.kind === 'op' && t.text === op;
  }
  next(): Token {
    const t = this.tokens[this.i++];
    if (!t) throw new ExpressionError('Unexpected end of expression');
    return t;
  }
  expectOp(op: string) {
    const t = this.next();
    if (t.kind !== 'op' || t.text !== op) throw new ExpressionError(`Expected "${op}", got "${t.text}"`);
  }
  expectWord(word: string) {
    if (!this.isWord(word)) throw new ExpressionError(`Expected ${word}`);
    this.i++;
  }

  private attributeName(t: Token): string {
    if (t.kind === 'name') {
      this.usedNames.add(t.text);
      const n = this.names?.[t.text];
      if (n === undefined) throw new ExpressionError(`An expression attribute name used in the document path is not defined; attribute name: ${t.text}`);
      return n;
    }
    if (t.kind === 'ident') return t.text;
    throw new ExpressionError(`Expected an attribute, got "${t.text}"`);
  }

  path(): Path {
    const path: Path = [this.attributeName(this.next())];
    for (;;) {
      if (this.isOp('.')) {
        this.i++;
        path.push(this.attributeName(this.next()));
      } else if (this.isOp('[')) {
        this.i++;
        const n = this.next();
        if (n.kind !== 'num') throw new ExpressionError('Expected a list index');
        path.push(Number(n.text));
        this.expectOp(']');
      } else return path;
    }
  }

  value(t: Token): unknown {
    this.usedValues.add(t.text);
    if (!this.values || !(t.text in this.values)) throw new ExpressionError(`An expression attribute value used in expression is not defined; attribute value: ${t.text}`);
    return this.values[t.text];
  }

  /** Checks that every name and value given was used (DynamoDB refuses unused ones). */
  checkAllUsed() {
    const unusedNames = Object.keys(this.names ?? {}).filter((n) => !this.usedNames.has(n));
    if (unusedNames.length) throw new ExpressionError(`Value provided in ExpressionAttributeNames unused in expressions: keys: {${unusedNames.join(', ')}}`);
    const unusedValues = Object.keys(this.values ?? {}).filter((v) => !this.usedValues.has(v));
    if (unusedValues.length) throw new ExpressionError(`Value provided in ExpressionAttributeValues unused in expressions: keys: {${unusedValues.join(', ')}}`);
  }
}

export function getPath(item: Doc | undefined, path: Path): unknown {
  let cur: unknown = item;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

function setPath(item: Doc, path: Path, value: unknown) {
  let cur: Record<string | number, unknown> = item;
  for (const p of path.slice(0, -1)) {
    const nextValue = cur[p];
    if (nextValue === null || typeof nextValue !== 'object') throw new ExpressionError('The document path provided in the update expression is invalid for update');
    cur = nextValue as Record<string | number, unknown>;
  }
  cur[path[path.length - 1]] = value;
}

function removePath(item: Doc, path: Path) {
  const parent = getPath(item, path.slice(0, -1)) as Record<string | number, unknown> | unknown[] | undefined;
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
  else if (parent && typeof parent === 'object') delete (parent as Record<string | number, unknown>)[last];
}

const typeOf = (v: unknown) =>
  v === undefined ? 'missing' : typeof v === 'number' ? 'N' : typeof v === 'string' ? 'S' : typeof v === 'boolean' ? 'BOOL' : v === null ? 'NULL' : v instanceof Uint8Array ? 'B' : v instanceof Set ? 'SET' : Array.isArray(v) ? 'L' : 'M';

/** DynamoDB's order: numbers by value, strings by UTF-8 bytes. Undefined when not comparable. */
export function compareValues(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return undefined;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  if (typeOf(a) !== typeOf(b)) return false;
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => b.has(x));
  if (typeof a === 'object' && a !== null) return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

function sizeOf(v: unknown): number | undefined {
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8');
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof Set) return v.size;
  if (Array.isArray(v)) return v.length;
  if (v && typeof v === 'object') return Object.keys(v).length;
  return undefined;
}

/** condition := or; evaluates on `item` (undefined = no item). */
function parseCondition(r: Reader, item: Doc | undefined): boolean {
  const or = (): boolean => {
    let result = and();
    while (r.isWord('OR')) {
      r.next();
      const right = and();
      result = result || right;
    }
    return result;
  };
  const and = (): boolean => {
    let result = not();
    while (r.isWord('AND')) {
      r.next();
      const right = not();
      result = result && right;
    }
    return result;
  };
  const not = (): boolean => {
    if (r.isWord('NOT')) {
      r.next();
      return !not();
    }
    return primary();
  };
  const operand = (): unknown => {
    const t = r.peek();
    if (t?.kind === 'value') return r.value(r.next());
    if (t?.kind === 'ident' && t.text === 'size' && r.peek(1)?.text === '(') {
      r.next();
      r.expectOp('(');
      const v = getPath(item, r.path());
      r.expectOp(')');
      return sizeOf(v);
    }
    return getPath(item, r.path());
  };
  const primary = (): boolean => {
    if (r.isOp('(')) {
      r.next();
      const v = or();
      r.expectOp(')');
      return v;
    }
    const t = r.peek();
    if (t?.kind === 'ident' && r.peek(1)?.text === '(' && t.text !== 'size') {
      const fn = r.next().text;
      r.expectOp('(');
      let result: boolean;
      if (fn === 'attribute_exists' || fn === 'attribute_not_exists') {
        const exists = getPath(item, r.path()) !== undefined;
        result = fn === 'attribute_exists' ? exists : !exists;
      } else if (fn === 'begins_with') {
        const a = operand();
        r.expectOp(',');
        const b = operand();
        result = (typeof a === 'string' && typeof b === 'string' && a.startsWith(b)) || (a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).subarray(0, b.length).equals(Buffer.from(b)));
      } else if (fn === 'contains') {
        const a = operand();
        r.expectOp(',');
        const b = operand();
        result = typeof a === 'string' ? typeof b === 'string' && a.includes(b) : a instanceof Set ? a.has(b) : Array.isArray(a) ? a.some((x) => equal(x, b)) : false;
      } else if (fn === 'attribute_type') {
        const a = getPath(item, r.path());
        r.expectOp(',');
        result = typeOf(a) === operand();
      } else throw new ExpressionError(`Invalid function name; function: ${fn}`);
      r.expectOp(')');
      return result;
    }
    const left = operand();
    if (r.isWord('BETWEEN')) {
      r.next();
      const lo = operand();
      r.expectWord('AND');
      const hi = operand();
      const a = compareValues(left, lo);
      const b = compareValues(left, hi);
      return a !== undefined && b !== undefined && a >= 0 && b <= 0;
    }
    if (r.isWord('IN')) {
      r.next();
      r.expectOp('(');
      const options = [operand()];
      while (r.isOp(',')) {
        r.next();
        options.push(operand());
      }
      r.expectOp(')');
      return options.some((o) => equal(left, o));
    }
    const op = r.next();
    if (op.kind !== 'op') throw new ExpressionError(`Expected a comparator, got "${op.text}"`);
    const right = operand();
    if (op.text === '=') return equal(left, right);
    // DynamoDB answers `<>` true also when the attribute is missing or of another type.
    if (op.text === '<>') return !equal(left, right);
    const c = compareValues(left, right);
    if (c === undefined) return false;
    if (op.text === '<') return c < 0;
    if (op.text === '<=') return c <= 0;
    if (op.text === '>') return c > 0;
    if (op.text === '>=') return c >= 0;
    throw new ExpressionError(`Invalid comparator "${op.text}"`);
  };
  const result = or();
  if (!r.done) throw new ExpressionError(`Syntax error near "${r.peek()!.text}"`);
  return result;
}

export interface ExpressionInput {
  ConditionExpression?: string;
  KeyConditionExpression?: string;
  FilterExpression?: string;
  UpdateExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: Values;
}

/** Every expression of one request, read together so unused names and values are refused. */
export class RequestExpressions {
  private readonly readers = new Map<keyof ExpressionInput, Reader>();
  constructor(private readonly input: ExpressionInput) {
    const all = new Reader('', input.ExpressionAttributeNames, input.ExpressionAttributeValues);
    for (const k of ['ConditionExpression', 'KeyConditionExpression', 'FilterExpression', 'UpdateExpression', 'ProjectionExpression'] as const) {
      const src = input[k];
      if (!src) continue;
      // A dry parse on an empty item records the names and values each expression uses.
      const r = new Reader(src, input.ExpressionAttributeNames, input.ExpressionAttributeValues);
      if (k === 'UpdateExpression') applyUpdate(r, {}, true);
      else if (k === 'ProjectionExpression') projectionPaths(r);
      else parseCondition(r, undefined);
      r.usedNames.forEach((n) => all.usedNames.add(n));
      r.usedValues.forEach((v) => all.usedValues.add(v));
      this.readers.set(k, r);
    }
    all.checkAllUsed();
  }

  private reader(k: keyof ExpressionInput) {
    return new Reader(this.input[k] as string, this.input.ExpressionAttributeNames, this.input.ExpressionAttributeValues);
  }

  test(k: 'ConditionExpression' | 'KeyConditionExpression' | 'FilterExpression', item: Doc | undefined): boolean {
    return !this.input[k] || parseCondition(this.reader(k), item);
  }

  /** Applies the update to a copy of `item`; answers the new item and the top-level attributes it touched. */
  update(item: Doc): { item: Doc; touched: Set<string> } {
    const copy = structuredClone(item);
    const touched = applyUpdate(this.reader('UpdateExpression'), copy);
    return { item: copy, touched };
  }

  project(item: Doc): Doc {
    if (!this.input.ProjectionExpression) return item;
    const out: Doc = {};
    for (const path of projectionPaths(this.reader('ProjectionExpression'))) {
      const v = getPath(item, path);
      if (v === undefined) continue;
      if (path.length === 1) out[path[0] as string] = v;
      else {
        let cur = out;
        for (const p of path.slice(0, -1)) cur = (cur[p as string] ??= {}) as Doc;
        cur[path[path.length - 1] as string] = v;
      }
    }
    return out;
  }
}

function projectionPaths(r: Reader): Path[] {
  const paths = [r.path()];
  while (r.isOp(',')) {
    r.next();
    paths.push(r.path());
  }
  if (!r.done) throw new ExpressionError(`Syntax error near "${r.peek()!.text}"`);
  return paths;
}

/** update := (SET … | REMOVE … | ADD … | DELETE …)+ ; mutates `item`. */
function applyUpdate(r: Reader, item: Doc, dry = false): Set<string> {
  const touched = new Set<string>();
  // A dry run (on an empty item, to see which names and values the expression uses) reads the
  // whole expression: only syntax errors stop it.
  const fail = (message: string) => {
    if (!dry) throw new ExpressionError(message);
  };
  const original = structuredClone(item);
  const valueOf = (): unknown => {
    const t = r.peek();
    if (t?.kind === 'value') return r.value(r.next());
    if (t?.kind === 'ident' && r.peek(1)?.text === '(') {
      const fn = r.next().text;
      r.expectOp('(');
      let out: unknown;
      if (fn === 'if_not_exists') {
        const existing = getPath(original, r.path());
        r.expectOp(',');
        const fallback = sum();
        out = existing === undefined ? fallback : existing;
      } else if (fn === 'list_append') {
        const a = sum();
        r.expectOp(',');
        const b = sum();
        if (!Array.isArray(a) || !Array.isArray(b)) fail('An operand in the update expression has an incorrect data type');
        out = [...((a as unknown[]) ?? []), ...((b as unknown[]) ?? [])];
      } else throw new ExpressionError(`Invalid function name; function: ${fn}`);
      r.expectOp(')');
      return out;
    }
    const v = getPath(original, r.path());
    if (v === undefined) fail('The provided expression refers to an attribute that does not exist in the item');
    return v;
  };
  const sum = (): unknown => {
    const left = valueOf();
    if (r.isOp('+') || r.isOp('-')) {
      const op = r.next().text;
      const right = valueOf();
      if (typeof left !== 'number' || typeof right !== 'number') return fail('An operand in the update expression has an incorrect data type');
      return op === '+' ? left + right : left - right;
    }
    return left;
  };
  const seen = new Set<string>();
  while (!r.done) {
    const clause = r.next().text.toUpperCase();
    if (seen.has(clause)) throw new ExpressionError(`The "${clause}" section can only be used once in an update expression`);
    seen.add(clause);
    do {
      if (r.isOp(',')) r.next();
      const path = r.path();
      touched.add(String(path[0]));
      if (clause === 'SET') {
        r.expectOp('=');
        const v = sum();
        if (!dry) setPath(item, path, v);
      } else if (clause === 'REMOVE') {
        removePath(item, path);
      } else if (clause === 'ADD') {
        const v = r.value(r.next());
        const cur = getPath(item, path);
        if (typeof v === 'number') {
          if (cur !== undefined && typeof cur !== 'number') fail('An operand in the update expression has an incorrect data type');
          else setPath(item, path, ((cur as number | undefined) ?? 0) + v);
        } else if (v instanceof Set) {
          setPath(item, path, new Set([...((cur as Set<unknown> | undefined) ?? []), ...v]));
        } else fail('Incorrect operand type for operator or function; operator: ADD');
      } else if (clause === 'DELETE') {
        const v = r.value(r.next());
        const cur = getPath(item, path);
        if (!(v instanceof Set)) fail('Incorrect operand type for operator or function; operator: DELETE');
        else if (cur instanceof Set) {
          const left = new Set([...cur].filter((x) => !v.has(x)));
          if (left.size) setPath(item, path, left);
          else removePath(item, path);
        }
      } else throw new ExpressionError(`Invalid UpdateExpression: Syntax error; token: "${clause}"`);
    } while (r.isOp(','));
  }
  return touched;
}
