/**
 * `search_query` conditions (spec 02 §2.9, reference §10.2-10.4): a Datadog-style log search
 * syntax, parsed once into a tree and compiled into a predicate over a log event's fields.
 * Metric events never match.
 */
import type { Event } from '../event.js';
import { Float, type ObjectValue, Timestamp, type Value, isObject } from '../value.js';
import { ConditionError } from './index.js';

// ---------------------------------------------------------------------------------------------
// Syntax tree

/** A literal or a glob: text parts and `*` wildcards (escaped stars are text). */
type Pattern = readonly (string | typeof STAR)[];
const STAR: unique symbol = Symbol('*');

/** A comparison bound: unbounded, a number, or text. */
type Bound = { readonly kind: 'any' } | { readonly kind: 'num'; readonly n: number; readonly text: string } | { readonly kind: 'str'; readonly text: string };

type Op =
  | { readonly t: 'term'; readonly text: string }
  | { readonly t: 'prefix'; readonly text: string }
  | { readonly t: 'wildcard'; readonly pattern: Pattern }
  | { readonly t: 'exists' }
  | { readonly t: 'missing' }
  | { readonly t: 'cmp'; readonly op: '<' | '<=' | '>' | '>='; readonly bound: Bound }
  | { readonly t: 'range'; readonly lo: Bound; readonly hi: Bound; readonly inclusive: boolean };

/** Where a clause looks: default fields, an `@attribute`, a reserved field, a tag, `tags`. */
type Target =
  | { readonly kind: 'default'; readonly paths: readonly (readonly string[])[] }
  | { readonly kind: 'attribute'; readonly path: readonly string[] }
  | { readonly kind: 'reserved'; readonly name: string }
  | { readonly kind: 'source' }
  | { readonly kind: 'tags' }
  | { readonly kind: 'tag'; readonly name: string };

type Node =
  | { readonly k: 'all' }
  | { readonly k: 'and' | 'or'; readonly nodes: readonly Node[] }
  | { readonly k: 'not'; readonly node: Node }
  | { readonly k: 'match'; readonly target: Target; readonly op: Op };

const RESERVED = new Set(['host', 'source', 'status', 'service', 'trace_id', 'message', 'timestamp', 'tags']);
const DEFAULT_PATHS: readonly (readonly string[])[] = [['message'], ['custom', 'error', 'message'], ['custom', 'error', 'stack'], ['custom', 'title'], ['_default_']];

const DEFAULT_NAMES = new Set(['message', 'custom.error.message', 'custom.error.stack', 'custom.title']);

function targetOf(name: string | undefined): Target {
  if (name === undefined || name === '_default_') return { kind: 'default', paths: DEFAULT_PATHS };
  if (name.startsWith('@')) return { kind: 'attribute', path: name.slice(1).split('.') };
  // a default field named explicitly keeps word matching (`message:timeout`)
  if (DEFAULT_NAMES.has(name)) return { kind: 'default', paths: [name.split('.')] };
  if (name === 'source') return { kind: 'source' };
  if (name === 'tags') return { kind: 'tags' };
  if (RESERVED.has(name)) return { kind: 'reserved', name };
  return { kind: 'tag', name };
}

// ---------------------------------------------------------------------------------------------
// Parser

/** A term as read: unescaped text, its glob pattern, whether it was quoted. */
interface Word {
  readonly text: string;
  readonly pattern: Pattern;
  readonly hasStar: boolean;
  readonly quoted: boolean;
}

/** Characters a plain term may not start with unless escaped (reference §10.2). */
const BAD_START = new Set(['!', ':', '=', '~', '^', '<', '>', '(', ')', '[', ']', '{', '}', '"', '+', '-', '\\']);

function isWs(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

class Parser {
  pos = 0;
  constructor(
    readonly src: string,
    readonly optionPath: string,
  ) {}

  fail(reason: string, at = this.pos): never {
    throw new ConditionError(`invalid search query "${this.src}": ${reason} at ${at}`, this.optionPath);
  }
  peek(): string | undefined {
    return this.src[this.pos];
  }
  skipWs(): void {
    while (isWs(this.src[this.pos])) this.pos++;
  }
  atEnd(): boolean {
    return this.pos >= this.src.length;
  }
  /** A keyword (AND, OR, NOT, TO) standing alone at the cursor. */
  isKeyword(kw: string): boolean {
    if (!this.src.startsWith(kw, this.pos)) return false;
    const after = this.src[this.pos + kw.length];
    return after === undefined || isWs(after) || after === '(' || after === ')';
  }
  isOr(): boolean {
    return this.isKeyword('OR') || this.src.startsWith('||', this.pos);
  }
  isAnd(): boolean {
    return this.isKeyword('AND') || this.src.startsWith('&&', this.pos);
  }

  parseQuery(): Node {
    this.skipWs();
    if (this.atEnd()) return { k: 'all' };
    const n = this.parseOr(undefined);
    this.skipWs();
    if (!this.atEnd()) this.fail(this.peek() === ')' ? 'unbalanced ")"' : `unexpected "${this.peek()}"`);
    return n;
  }

  parseOr(field: string | undefined): Node {
    const nodes = [this.parseAnd(field)];
    for (;;) {
      this.skipWs();
      if (!this.isOr()) break;
      this.pos += 2; // `OR` and `||` are both two characters
      nodes.push(this.parseAnd(field));
    }
    return nodes.length === 1 ? nodes[0]! : { k: 'or', nodes };
  }

  parseAnd(field: string | undefined): Node {
    const nodes = [this.parseUnary(field)];
    for (;;) {
      this.skipWs();
      if (this.atEnd() || this.peek() === ')' || this.isOr()) break;
      if (this.isAnd()) this.pos += this.src[this.pos] === '&' ? 2 : 3;
      nodes.push(this.parseUnary(field));
    }
    return nodes.length === 1 ? nodes[0]! : { k: 'and', nodes };
  }

  parseUnary(field: string | undefined): Node {
    this.skipWs();
    if (this.isKeyword('NOT')) {
      this.pos += 3;
      return { k: 'not', node: this.parseUnary(field) };
    }
    const c = this.peek();
    if (c === '-' || c === '+') {
      this.pos++;
      const node = this.parseUnary(field);
      return c === '-' ? { k: 'not', node } : node;
    }
    return this.parsePrimary(field);
  }

  parsePrimary(field: string | undefined): Node {
    this.skipWs();
    const start = this.pos;
    const c = this.peek();
    if (c === undefined) this.fail('unexpected end of query');
    if (this.isAnd() || this.isOr()) this.fail('operator without a left operand');
    if (c === '(') {
      this.pos++;
      const n = this.parseOr(field);
      this.skipWs();
      if (this.peek() !== ')') this.fail('missing ")"', start);
      this.pos++;
      return n;
    }
    if (c === ')') this.fail('unexpected ")"');
    if (c === '"') return this.match(field, this.termOp(this.quoted()));
    if (c === '[' || c === '{') return this.match(field, this.range());
    if (c === '<' || c === '>') return this.match(field, this.comparison());
    const w = this.word(field !== undefined);
    if (!w.quoted && this.peek() === ':' && field === undefined) {
      this.pos++;
      return this.fieldValue(w.text, start);
    }
    if (field === undefined && w.text === '*' && w.hasStar) return { k: 'all' };
    if (field !== undefined) return this.match(field, this.termOp(w));
    // consecutive bare words form one multi-word term against the default fields
    let text = w.text;
    let pattern: (string | typeof STAR)[] = [...w.pattern];
    let hasStar = w.hasStar;
    for (;;) {
      const save = this.pos;
      this.skipWs();
      if (this.pos === save || this.atEnd() || this.isAnd() || this.isOr() || this.isKeyword('NOT')) {
        this.pos = save;
        break;
      }
      const d = this.peek()!;
      if (d !== '\\' && BAD_START.has(d)) {
        this.pos = save;
        break;
      }
      const next = this.word(false);
      if (this.peek() === ':' || next.hasStar || hasStar || this.beforeConjunction()) {
        this.pos = save;
        break;
      }
      text += ' ' + next.text;
      pattern = [...pattern, ' ', ...next.pattern];
      hasStar ||= next.hasStar;
    }
    return this.match(undefined, this.termOp({ text, pattern, hasStar, quoted: false }));
  }

  /** White space then AND/OR follows the cursor: the word before stays its own clause. */
  beforeConjunction(): boolean {
    const save = this.pos;
    this.skipWs();
    const yes = this.pos > save && (this.isAnd() || this.isOr());
    this.pos = save;
    return yes;
  }

  match(field: string | undefined, op: Op): Node {
    if (field !== undefined && (field === '' || field === '@')) this.fail('empty field name');
    return { k: 'match', target: targetOf(field), op };
  }

  /** After `name:`: a group, phrase, range, comparison or term. */
  fieldValue(name: string, start: number): Node {
    const c = this.peek();
    if (c === undefined || isWs(c) || c === ')') this.fail(`missing value for field "${name}"`, start);
    if (name === '_exists_' || name === '_missing_') {
      const w = c === '"' ? this.quoted() : this.word(false);
      const target = targetOf(w.text);
      return { k: 'match', target, op: { t: name === '_exists_' ? 'exists' : 'missing' } };
    }
    if (name === '*' || name === '_default_') {
      const save = this.pos;
      const w = c === '"' || BAD_START.has(c) ? undefined : this.word(true);
      if (w && w.text === '*' && w.hasStar) return { k: 'all' };
      if (name === '*') this.fail('only "*" may follow "*:"', start);
      this.pos = save;
    }
    if (c === '(') {
      this.pos++;
      const n = this.parseOr(name);
      this.skipWs();
      if (this.peek() !== ')') this.fail('missing ")"', start);
      this.pos++;
      return n;
    }
    if (c === '"') return this.match(name, this.termOp(this.quoted()));
    if (c === '[' || c === '{') return this.match(name, this.range());
    if (c === '<' || c === '>') return this.match(name, this.comparison());
    const w = this.word(true);
    return this.match(name, this.termOp(w));
  }

  termOp(w: Word): Op {
    if (!w.hasStar) return { t: 'term', text: w.text };
    const last = w.pattern.length - 1;
    if (w.pattern[last] === STAR && w.pattern.indexOf(STAR) === last && last > 0) return { t: 'prefix', text: w.text.slice(0, -1) };
    // `field:*` is the wildcard matching any string value (not an existence test)
    return { t: 'wildcard', pattern: w.pattern };
  }

  /** A plain term; `allowColon` inside a field value (`url:http\://x` or `tags:env:prod`). */
  word(allowColon: boolean): Word {
    const src = this.src;
    const first = src[this.pos];
    if (first === undefined) this.fail('unexpected end of query');
    if (first !== '\\' && BAD_START.has(first)) this.fail(`a term cannot start with "${first}"`);
    const pattern: (string | typeof STAR)[] = [];
    let text = '';
    let lit = '';
    let hasStar = false;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (isWs(c) || c === '(' || c === ')' || c === '"' || (c === ':' && !allowColon)) break;
      if (c === '\\') {
        const nx = src[this.pos + 1];
        if (nx === undefined) this.fail('dangling escape');
        lit += nx;
        text += nx;
        this.pos += 2;
        continue;
      }
      if (c === '*') {
        if (lit) pattern.push(lit);
        lit = '';
        pattern.push(STAR);
        hasStar = true;
      } else lit += c;
      text += c;
      this.pos++;
    }
    if (lit) pattern.push(lit);
    if (text === '' && pattern.length === 0) this.fail('empty term');
    return { text, pattern, hasStar, quoted: false };
  }

  /** `"…"` with backslash escapes; no wildcards. */
  quoted(): Word {
    const start = this.pos;
    this.pos++;
    let text = '';
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]!;
      if (c === '\\') {
        const nx = this.src[this.pos + 1];
        if (nx === undefined) break;
        text += nx;
        this.pos += 2;
        continue;
      }
      if (c === '"') {
        this.pos++;
        return { text, pattern: [text], hasStar: false, quoted: true };
      }
      text += c;
      this.pos++;
    }
    this.fail('unterminated quoted phrase', start);
  }

  bound(terminators: string): Bound {
    this.skipWs();
    let text: string;
    let star = false;
    if (this.peek() === '"') text = this.quoted().text;
    else {
      const start = this.pos;
      text = '';
      while (this.pos < this.src.length && !isWs(this.src[this.pos]) && !terminators.includes(this.src[this.pos]!)) {
        if (this.src[this.pos] === '\\' && this.pos + 1 < this.src.length) this.pos++;
        text += this.src[this.pos];
        this.pos++;
      }
      if (text === '') this.fail('missing bound', start);
      star = text === '*' && this.src[start] === '*';
    }
    return star ? { kind: 'any' } : parseBound(text);
  }

  range(): Op {
    const start = this.pos;
    const open = this.src[this.pos]!;
    this.pos++;
    const lo = this.bound(']}');
    this.skipWs();
    if (!this.isKeyword('TO')) this.fail('expected "TO" in range', start);
    this.pos += 2;
    const hi = this.bound(']}');
    this.skipWs();
    const close = this.peek();
    if (close !== ']' && close !== '}') this.fail('unterminated range', start);
    if ((open === '[') !== (close === ']')) this.fail('mixed range brackets are not supported', start);
    this.pos++;
    return { t: 'range', lo, hi, inclusive: open === '[' };
  }

  comparison(): Op {
    let op: '<' | '<=' | '>' | '>=' = this.src[this.pos] as '<' | '>';
    this.pos++;
    if (this.peek() === '=') {
      op = (op + '=') as '<=' | '>=';
      this.pos++;
    }
    if (this.atEnd() || isWs(this.peek())) this.fail('missing comparison value');
    return { t: 'cmp', op, bound: this.bound('()') };
  }
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/;

/** Comparison value parsing: integer if it parses, else float, else text (reference §10.4). */
function parseBound(text: string): Bound {
  // the text compared against strings is the number's own rendering (`0041` compares as `41`)
  if (INT_RE.test(text) || FLOAT_RE.test(text)) return { kind: 'num', n: Number(text), text: String(Number(text)) };
  return { kind: 'str', text };
}

// ---------------------------------------------------------------------------------------------
// Matching

type Fields = ObjectValue;
type Test = (fields: Fields) => boolean;

function get(fields: Fields, path: readonly string[]): Value | undefined {
  let cur: Value | undefined = fields;
  for (let i = 0; i < path.length; i++) {
    if (!isObject(cur)) return undefined;
    cur = Object.prototype.hasOwnProperty.call(cur, path[i]!) ? cur[path[i]!] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
function globSource(p: Pattern): string {
  return p.map((x) => (x === STAR ? '.*' : escapeRe(x))).join('');
}

function numberOf(v: Value): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Float) return v.value;
  return undefined;
}
/** String form for attribute equality: strings, integers, floats and booleans only. */
function scalarText(v: Value): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Float) return String(v.value);
  return undefined;
}

function cmpOk(c: number, op: '<' | '<=' | '>' | '>='): boolean {
  switch (op) {
    case '<': return c < 0;
    case '<=': return c <= 0;
    case '>': return c > 0;
    case '>=': return c >= 0;
  }
}
function strCmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Compares a field value to a bound. Attributes: numbers numerically against numeric bounds,
 * strings as strings, anything else does not compare. Other fields: strings only.
 */
function compareValue(v: Value, b: Bound, attribute: boolean): number | undefined {
  if (b.kind === 'any') return 0;
  if (attribute) {
    const n = numberOf(v);
    if (n !== undefined) return b.kind === 'num' ? n - b.n : undefined;
  }
  // a timestamp compares through its RFC 3339 text (`timestamp:>2024-01-01`)
  const s = typeof v === 'string' ? v : v instanceof Timestamp ? v.toString() : undefined;
  return s === undefined ? undefined : strCmp(s, b.text);
}

/** A value test for one operation; `numeric` enables attribute semantics for comparisons. */
function valueTest(op: Op, mode: 'default' | 'reserved' | 'attribute'): (v: Value) => boolean {
  switch (op.t) {
    case 'term':
      if (mode === 'default') {
        const re = new RegExp(`\\b${escapeRe(op.text).replace(/\\\*/g, '.*')}\\b`);
        return (v) => typeof v === 'string' && re.test(v);
      }
      if (mode === 'attribute') return (v) => scalarText(v) === op.text;
      return (v) => v === op.text;
    case 'prefix':
      if (mode === 'default') {
        const re = new RegExp(`\\b${escapeRe(op.text)}.*\\b`);
        return (v) => typeof v === 'string' && re.test(v);
      }
      return (v) => typeof v === 'string' && v.startsWith(op.text);
    case 'wildcard': {
      const re = mode === 'default' ? new RegExp(`\\b${globSource(op.pattern)}\\b`) : new RegExp(`^${globSource(op.pattern)}$`);
      return (v) => typeof v === 'string' && re.test(v);
    }
    case 'exists':
    case 'missing':
      return () => true;
    case 'cmp':
      return (v) => {
        const c = compareValue(v, op.bound, mode === 'attribute');
        return c !== undefined && cmpOk(c, op.op);
      };
    case 'range':
      return (v) => {
        const lo = compareValue(v, op.lo, mode === 'attribute');
        const hi = compareValue(v, op.hi, mode === 'attribute');
        if (lo === undefined || hi === undefined) return false;
        const okLo = op.lo.kind === 'any' || (op.inclusive ? lo >= 0 : lo > 0);
        const okHi = op.hi.kind === 'any' || (op.inclusive ? hi <= 0 : hi < 0);
        return okLo && okHi;
      };
  }
}

/** Any of the candidate paths holds a value passing the test; `missing` = all absent. */
function onPaths(paths: readonly (readonly string[])[], op: Op, mode: 'default' | 'reserved' | 'attribute'): Test {
  if (op.t === 'missing') return (f) => paths.every((p) => get(f, p) === undefined);
  if (op.t === 'exists') return (f) => paths.some((p) => get(f, p) !== undefined);
  const test = valueTest(op, mode);
  if (paths.length === 1) {
    const p = paths[0]!;
    return (f) => {
      const v = get(f, p);
      return v !== undefined && test(v);
    };
  }
  return (f) => {
    for (const p of paths) {
      const v = get(f, p);
      if (v !== undefined && test(v)) return true;
    }
    return false;
  };
}

/** String elements of the `ddtags` and `tags` arrays. */
function tagElements(f: Fields, out: string[]): string[] {
  out.length = 0;
  for (const k of ['ddtags', 'tags']) {
    const arr = f[k];
    if (Array.isArray(arr))
      for (const el of arr) {
        const text = scalarText(el);
        if (text !== undefined) out.push(text);
      }
  }
  return out;
}

function tagTest(name: string, op: Op): Test {
  const prefix = name + ':';
  const scratch: string[] = [];
  const some = (pred: (el: string) => boolean): Test => (f) => tagElements(f, scratch).some(pred);
  switch (op.t) {
    case 'term': {
      const want = prefix + op.text;
      return some((el) => el === want);
    }
    case 'prefix': {
      const want = prefix + op.text;
      return some((el) => el.startsWith(want));
    }
    case 'wildcard': {
      const re = new RegExp(`^${escapeRe(prefix)}${globSource(op.pattern)}$`);
      return some((el) => re.test(el));
    }
    case 'exists':
      return some((el) => el === name || el.startsWith(prefix));
    case 'missing':
      return (f) => !tagElements(f, scratch).some((el) => el === name || el.startsWith(prefix));
    case 'cmp':
    case 'range': {
      const test = valueTest(op, 'reserved');
      // the tag name is the text before the first colon
      return some((el) => el.startsWith(prefix) && el.indexOf(':') === name.length && test(el.slice(prefix.length)));
    }
  }
}

/** The reserved `tags` field: terms look for the whole element in `ddtags`/`tags` arrays. */
function tagsFieldTest(op: Op): Test {
  const scratch: string[] = [];
  switch (op.t) {
    case 'term':
      return (f) => tagElements(f, scratch).includes(op.text);
    case 'exists':
      return (f) => tagElements(f, scratch).includes('tags');
    case 'missing':
      return (f) => !tagElements(f, scratch).includes('tags');
    default:
      // other operations read `tags` as a plain string field
      return onPaths([['tags']], op, 'reserved');
  }
}

function compileNode(n: Node): Test {
  switch (n.k) {
    case 'all':
      return () => true;
    case 'not': {
      const inner = compileNode(n.node);
      return (f) => !inner(f);
    }
    case 'and': {
      const tests = n.nodes.map(compileNode);
      return (f) => {
        for (let i = 0; i < tests.length; i++) if (!tests[i]!(f)) return false;
        return true;
      };
    }
    case 'or': {
      const tests = n.nodes.map(compileNode);
      return (f) => {
        for (let i = 0; i < tests.length; i++) if (tests[i]!(f)) return true;
        return false;
      };
    }
    case 'match': {
      const t = n.target;
      switch (t.kind) {
        case 'default':
          return onPaths(t.paths, n.op, 'default');
        case 'attribute':
          return onPaths([t.path], n.op, 'attribute');
        case 'reserved':
          return onPaths([[t.name]], n.op, 'reserved');
        case 'source':
          return onPaths([['ddsource'], ['source']], n.op, 'reserved');
        case 'tags':
          return tagsFieldTest(n.op);
        case 'tag':
          return tagTest(t.name, n.op);
      }
    }
  }
}

/** Parses a query into its tree (exposed for tests and tooling); throws ConditionError. */
export function parseSearchQuery(source: string, optionPath = 'condition.source'): unknown {
  return new Parser(source, optionPath).parseQuery();
}

/**
 * Compiles a search query into a predicate over events; only log events can match.
 * Throws {@link ConditionError} naming `optionPath` for an invalid query.
 */
export function compileSearchQuery(source: string, optionPath: string): (e: Event) => boolean {
  const test = compileNode(new Parser(source, optionPath).parseQuery());
  return (e) => e.type === 'log' && test(e.fields);
}
