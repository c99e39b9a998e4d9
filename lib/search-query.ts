/**
 * The Datadog log search syntax, parsed and matched in one place for both users: VRL's
 * `match_datadog_query` (over any object) and the `search_query` condition (over a log event,
 * as Vector's `datadog_search` condition). As in Vector, the grammar and the tree are shared and only the
 * field lookups differ: the condition also reads `ddtags` and `ddsource` and matches strings
 * only, while the VRL function reads `tags` and compares any value through its display text.
 */
import { guardedRegExp } from './bounded-regex.js';
import { type Value, Float, Timestamp, isObject } from './value.js';
import { type Path, parsePath } from './path.js';
import { displayValue } from './value-display.js';

/** What a query runs over: a plain object (VRL) or a log event's fields (conditions). */
export type QueryTarget = 'value' | 'event';

/** Thrown for a query that does not parse or names a field that is not a valid path. */
export class DatadogQueryError extends Error {}

// ---------------------------------------------------------------------------------------------
// Tree

type Cmp = '<' | '<=' | '>' | '>=';
type CmpValue = { t: 'int'; v: number } | { t: 'float'; v: number } | { t: 'str'; v: string } | { t: 'unbounded' };

type Node =
  | { k: 'all' }
  | { k: 'none' }
  | { k: 'exists' | 'missing'; attr: string }
  | { k: 'term'; attr: string; value: string }
  | { k: 'prefix'; attr: string; prefix: string }
  | { k: 'wildcard'; attr: string; wildcard: string }
  | { k: 'compare'; attr: string; op: Cmp; value: CmpValue }
  | { k: 'range'; attr: string; lower: CmpValue; lowerIncl: boolean; upper: CmpValue; upperIncl: boolean }
  | { k: 'not'; node: Node }
  | { k: 'and' | 'or'; nodes: Node[] };

const DEFAULT_FIELD = '_default_';
const DEFAULT_FIELDS = ['message', 'custom.error.message', 'custom.error.stack', 'custom.title', '_default_'];
const RESERVED = ['host', 'source', 'status', 'service', 'trace_id', 'message', 'timestamp', 'tags'];

// ---------------------------------------------------------------------------------------------
// Parser: a PEG like Vector's (ordered choice, greedy repetition, no backtracking into a
// repetition), so the odd corners agree too: `OR x` reads `OR` as a glob term, a term may not
// begin with AND/OR/NOT/-, and leading white space is a syntax error.

const INVALID_START = new Set([' ', '\t', '\r', '\n', '"', '(', ')', '[', ']', '{', '}', '+', '-', '!', ':', '~', '^', '?', '*', '\\', '>', '=', '<']);
const isWs = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';

function unescape(s: string): string {
  // a trailing lone backslash is dropped, as Vector does
  return s.replace(/\\([\s\S]?)/gu, '$1');
}

/** Rust's text-to-number rules for comparison values: integer, else float, else text. */
function cmpValue(raw: string): CmpValue {
  let s = unescape(raw);
  const quoted = /^"(.+)"$/.exec(s);
  if (quoted) s = quoted[1]!;
  if (s === '*') return { t: 'unbounded' };
  if (/^[+-]?\d+$/.test(s)) {
    const big = BigInt(s);
    if (big >= -(2n ** 63n) && big < 2n ** 63n) return { t: 'int', v: Number(s) };
  }
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) return { t: 'float', v: Number(s) };
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return { t: 'float', v: special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity };
  return { t: 'str', v: s };
}

class QueryParser {
  constructor(readonly s: string) {}

  fail(at: number): never {
    throw new DatadogQueryError(`invalid search query at ${at}`);
  }
  skip(i: number): number {
    while (isWs(this.s[i])) i++;
    return i;
  }
  /** One character (a whole code point), or -1 at the end. */
  any(i: number): number {
    if (i >= this.s.length) return -1;
    const c = this.s.codePointAt(i)!;
    return i + (c > 0xffff ? 2 : 1);
  }
  esc(i: number): number {
    return this.s[i] === '\\' ? this.any(i + 1) : -1;
  }
  termStart(i: number): number {
    const e = this.esc(i);
    if (e >= 0) return e;
    const c = this.s[i];
    if (c === undefined || INVALID_START.has(c) || this.s.startsWith('UNICODE3000', i)) return -1;
    return this.any(i);
  }
  termChar(i: number, glob: boolean): number {
    const c = this.s[i];
    if (c === '-' || c === '+' || c === '=' || (glob && (c === '*' || c === '?'))) return i + 1;
    return this.termStart(i);
  }
  termEnd(i: number): boolean {
    const c = this.s[i];
    return c === undefined || isWs(c) || c === ')' || c === ']' || c === '}';
  }
  keyword(i: number, kws: readonly string[]): string | undefined {
    return kws.find((k) => this.s.startsWith(k, i));
  }
  term(i: number): number {
    if (this.keyword(i, ['AND', '&&', 'OR', '||', 'NOT', '-'])) return -1;
    let j = this.termStart(i);
    if (j < 0) return -1;
    for (let n = this.termChar(j, false); n >= 0; n = this.termChar(j, false)) j = n;
    return j;
  }
  termPrefix(i: number): number {
    let j = this.termStart(i);
    if (j < 0) return -1;
    for (let n = this.termChar(j, false); n >= 0; n = this.termChar(j, false)) j = n;
    return this.s[j] === '*' && this.termEnd(j + 1) ? j + 1 : -1;
  }
  termGlob(i: number): number {
    const c = this.s[i];
    let j = c === '*' || c === '?' ? i + 1 : this.termStart(i);
    if (j < 0) return -1;
    for (let n = this.termChar(j, true); n >= 0; n = this.termChar(j, true)) j = n;
    return this.termEnd(j) ? j : -1;
  }
  phrase(i: number): number {
    if (this.s[i] !== '"') return -1;
    let j = i + 1;
    for (;;) {
      const e = this.esc(j);
      if (e >= 0) j = e;
      else if (this.s[j] === '"') return j + 1;
      else if ((j = this.any(j)) < 0) return -1;
    }
  }
  numValue(i: number): number {
    let j = this.s[i] === '-' ? i + 1 : this.s.startsWith('\\-', i) ? i + 2 : i;
    const digits = (k: number): number => {
      let m = k;
      while (m < this.s.length && this.s[m]! >= '0' && this.s[m]! <= '9') m++;
      return m > k ? m : -1;
    };
    j = digits(j);
    if (j < 0) return -1;
    if (this.s[j] === '.') {
      const f = digits(j + 1);
      if (f >= 0) j = f;
    }
    return j;
  }
  numericTerm(i: number): number {
    const j = this.numValue(i);
    if (j < 0) return -1;
    const e = this.s[j] === 'E' ? this.numValue(j + 1) : -1;
    return e >= 0 ? e : j;
  }

  /** `queryroot`: the whole text. */
  root(): Node {
    if (this.s.trim() === '') return { k: 'all' };
    const q = this.query(0, DEFAULT_FIELD);
    if (!q) this.fail(0);
    const end = this.skip(q.end);
    if (end !== this.s.length) this.fail(end);
    return q.node;
  }

  query(i: number, field: string): { node: Node; end: number } | undefined {
    const groups: Node[] = [];
    let group: Node[] = [];
    let negate = false;
    let pos = i;
    for (let first = true; ; first = false) {
      const at = first ? pos : this.skip(pos);
      const multi = this.multiterm(at, field);
      if (multi) {
        group.push(negate ? { k: 'not', node: multi.node } : multi.node);
        negate = false;
        pos = multi.end;
        continue;
      }
      let j = at;
      let or = false;
      if (!first) {
        const conj = this.keyword(j, ['AND', '&&', 'OR', '||']);
        if (conj) {
          or = conj === 'OR' || conj === '||';
          j = this.skip(j + conj.length);
        }
      }
      let not = false;
      const mod = this.keyword(j, ['+', 'NOT', '-']);
      if (mod) {
        not = mod !== '+';
        j = this.skip(j + mod.length);
      }
      const clause = this.clause(j, field);
      if (!clause) {
        if (first) return undefined;
        break;
      }
      if (or) {
        groups.push(boolean('and', group));
        group = [];
      }
      if (not) negate = true;
      group.push(negate ? { k: 'not', node: clause.node } : clause.node);
      negate = false;
      pos = clause.end;
    }
    groups.push(boolean('and', group));
    const node = boolean('or', groups);
    return { node: node.k === 'not' && node.node.k === 'all' ? { k: 'none' } : node, end: pos };
  }

  /** Bare terms in a row (not a field, not a glob, not before AND/OR) form one default-field term. */
  multiterm(i: number, field: string): { node: Node; end: number } | undefined {
    const terms: string[] = [];
    let pos = i;
    let end = -1;
    for (;;) {
      const t = this.term(pos);
      if (t < 0) break;
      const c = this.s[t];
      if (c === ':' || c === '*') break;
      const after = this.skip(t);
      if (after > t && this.keyword(after, ['AND', '&&', 'OR', '||'])) break;
      terms.push(unescape(this.s.slice(pos, t)));
      end = t;
      pos = after;
    }
    if (terms.length === 0) return undefined;
    return { node: { k: 'term', attr: field, value: terms.join(' ') }, end };
  }

  clause(i: number, outer: string): { node: Node; end: number } | undefined {
    if (this.s.startsWith('*:*', i)) return { node: { k: 'all' }, end: i + 3 };
    const t = this.term(i);
    const named = t >= 0 && this.s[t] === ':';
    const field = named ? this.s.slice(i, t) : outer;
    const at = named ? this.skip(t + 1) : i;
    const value = this.value(at, field);
    if (value) return value;
    if (this.s[at] !== '(') return undefined;
    const q = this.query(this.skip(at + 1), field);
    if (!q) return undefined;
    const close = this.skip(q.end);
    return this.s[close] === ')' ? { node: q.node, end: close + 1 } : undefined;
  }

  value(i: number, field: string): { node: Node; end: number } | undefined {
    const s = this.s;
    const attr = unescape(field);
    if (s[i] === '*' && this.termEnd(i + 1)) return { node: field === DEFAULT_FIELD ? { k: 'all' } : { k: 'wildcard', attr, wildcard: '*' }, end: i + 1 };
    let j = this.phrase(i);
    if (j >= 0) return { node: this.termNode(field, attr, unescape(s.slice(i + 1, j - 1))), end: j };
    j = this.termPrefix(i);
    if (j >= 0) return { node: { k: 'prefix', attr, prefix: unescape(s.slice(i, j - 1)) }, end: j };
    const op = this.keyword(i, ['>=', '<=', '>', '<']) as Cmp | undefined;
    if (op) {
      const at = i + op.length;
      j = this.numericTerm(at);
      if (j >= 0) return { node: { k: 'compare', attr, op, value: cmpValue(s.slice(at, j)) }, end: j };
      j = this.term(at);
      if (j >= 0) return { node: { k: 'compare', attr, op, value: { t: 'str', v: unescape(s.slice(at, j)) } }, end: j };
    }
    const range = this.range(i, attr);
    if (range) return range;
    j = this.term(i);
    if (j >= 0 && this.termEnd(j)) return { node: this.termNode(field, attr, unescape(s.slice(i, j))), end: j };
    j = this.termGlob(i);
    if (j >= 0) return { node: { k: 'wildcard', attr, wildcard: unescape(s.slice(i, j)) }, end: j };
    return undefined;
  }

  termNode(field: string, attr: string, text: string): Node {
    if (field === '_exists_') return { k: 'exists', attr: text };
    if (field === '_missing_') return { k: 'missing', attr: text };
    return { k: 'term', attr, value: text };
  }

  range(i: number, attr: string): { node: Node; end: number } | undefined {
    const open = this.s[i];
    if (open !== '[' && open !== '{') return undefined;
    const bound = (k: number): number => {
      let m = k;
      while (m < this.s.length && !isWs(this.s[m]) && this.s[m] !== ']' && this.s[m] !== '}') m++;
      return m > k ? m : -1;
    };
    const lo = this.skip(i + 1);
    const loEnd = bound(lo);
    if (loEnd < 0) return undefined;
    const to = this.skip(loEnd);
    if (!this.s.startsWith('TO', to)) return undefined;
    const hi = this.skip(to + 2);
    const hiEnd = bound(hi);
    if (hiEnd < 0) return undefined;
    const closeAt = this.skip(hiEnd);
    const close = this.s[closeAt];
    if (close !== ']' && close !== '}') return undefined;
    // Vector's grammar accepts `[a TO b}` and then fails while building the tree
    if ((open === '[') !== (close === ']')) throw new DatadogQueryError('invalid range: mixed brackets');
    const incl = open === '[';
    const node: Node = { k: 'range', attr, lower: cmpValue(this.s.slice(lo, loEnd)), lowerIncl: incl, upper: cmpValue(this.s.slice(hi, hiEnd)), upperIncl: incl };
    return { node, end: closeAt + 1 };
  }
}

function boolean(k: 'and' | 'or', nodes: Node[]): Node {
  return nodes.length === 1 ? nodes[0]! : { k, nodes };
}

// ---------------------------------------------------------------------------------------------
// Matcher

type Field = { kind: 'default' | 'reserved' | 'attribute' | 'tag'; name: string };
type Pred = (v: Value) => boolean;

function fieldsOf(attr: string): Field[] {
  if (attr === DEFAULT_FIELD) return DEFAULT_FIELDS.map((name) => ({ kind: 'default' as const, name }));
  const v = attr.replace(/@/g, '.');
  if (attr.startsWith('@')) return [{ kind: 'attribute', name: v }];
  if (DEFAULT_FIELDS.includes(v)) return [{ kind: 'default', name: v }];
  if (RESERVED.includes(v)) return [{ kind: 'reserved', name: v }];
  return [{ kind: 'tag', name: v }];
}

function pathOf(name: string): Path {
  try {
    return parsePath(name);
  } catch {
    throw new DatadogQueryError('failed to build matcher');
  }
}

function lookup(obj: Value, p: Path): Value | undefined {
  let cur: Value | undefined = obj;
  for (const s of p) {
    if (typeof s === 'number') cur = Array.isArray(cur) ? cur[s < 0 ? cur.length + s : s] : undefined;
    else cur = isObject(cur) && Object.prototype.hasOwnProperty.call(cur, s) ? cur[s] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** A float as Rust prints it: shortest round trip, never in exponent form. */
function plainFloat(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'inf' : '-inf';
  const text = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const digits = m[2]! + (m[3] ?? '');
  const exp = Number(m[4]);
  if (exp >= 0) return m[1]! + digits.padEnd(exp + 1, '0');
  return `${m[1]!}0.${'0'.repeat(-exp - 1)}${digits}`;
}

/** VRL's string form of any value: strings as they are, others as displayed. */
const displayText = (v: Value): string => (typeof v === 'string' ? v : displayValue(v));
/** Condition attribute equality: the text of a string, integer, float or boolean. */
const scalarText = (v: Value): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v instanceof Float ? plainFloat(v.value) : undefined;
/** A tag element as text (the condition coerces any element to bytes). */
const elementText = (v: Value): string => (typeof v === 'string' ? v : v instanceof Timestamp ? v.toString() : scalarText(v) ?? displayValue(v));
const cmpText = (c: CmpValue): string => (c.t === 'unbounded' ? '*' : c.t === 'str' ? c.v : c.t === 'float' ? plainFloat(c.v) : String(c.v));

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
// wildcards become `.*`, and several of them backtrack polynomially on a long value: guarded
const wordRegex = (s: string): RegExp => guardedRegExp(`\\b${escapeRe(s).replace(/\\\*/g, '.*')}\\b`);
const wildcardRegex = (s: string): RegExp => guardedRegExp(`^${escapeRe(s).replace(/\\\*/g, '.*')}$`);

function order(a: string | number, op: Cmp, b: string | number): boolean {
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}

/** The value at one of the paths passes `test`. */
function atAny(paths: readonly Path[], test: Pred): Pred {
  if (paths.length === 1) {
    const p = paths[0]!;
    return (obj) => {
      const v = lookup(obj, p);
      return v !== undefined && test(v);
    };
  }
  return (obj) => paths.some((p) => {
    const v = lookup(obj, p);
    return v !== undefined && test(v);
  });
}
const onString = (f: (s: string) => boolean): Pred => (v) => typeof v === 'string' && f(v);
const onArray = (f: (a: readonly Value[]) => boolean): Pred => (v) => Array.isArray(v) && f(v);

/** Field lookups of one target (Vector's `Filter` implementations). */
class Lookups {
  readonly tagPaths: readonly Path[];
  readonly sourcePaths: readonly Path[];
  constructor(readonly target: QueryTarget) {
    const event = target === 'event';
    this.tagPaths = event ? [['ddtags'], ['tags']] : [['tags']];
    this.sourcePaths = event ? [['ddsource'], ['source']] : [['source']];
  }
  get event(): boolean {
    return this.target === 'event';
  }
  /** Text tests on a plain field: strings only for events, any value's display text for VRL. */
  text(f: (s: string) => boolean): Pred {
    return this.event ? onString(f) : (v) => f(displayText(v));
  }
  paths(f: Field): readonly Path[] {
    return f.kind === 'reserved' && f.name === 'source' ? this.sourcePaths : [pathOf(f.name)];
  }
  anyElement(f: (s: string) => boolean): Pred {
    const text = this.event ? elementText : displayText;
    return atAny(this.tagPaths, onArray((a) => a.some((x) => f(text(x)))));
  }

  exists(f: Field): Pred {
    if (f.kind === 'tag') {
      const prefix = `${f.name}:`;
      return this.anyElement((t) => t === f.name || t.startsWith(prefix));
    }
    if (f.kind === 'reserved' && f.name === 'tags') {
      // VRL compares each element with the array itself, which never holds
      return this.event ? this.anyElement((t) => t === 'tags') : () => false;
    }
    return atAny(this.paths(f), () => true);
  }

  equals(f: Field, value: string): Pred {
    if (f.kind === 'default') {
      const re = wordRegex(value);
      return atAny(this.paths(f), onString((s) => re.test(s)));
    }
    if (f.kind === 'tag' || (f.kind === 'reserved' && f.name === 'tags')) {
      const want = f.kind === 'tag' ? `${f.name}:${value}` : value;
      return atAny(this.tagPaths, onArray((a) => a.some((x) => x === want)));
    }
    if (this.event && f.kind === 'attribute') return atAny(this.paths(f), (v) => scalarText(v) === value);
    return atAny(this.paths(f), this.text((s) => s === value));
  }

  prefix(f: Field, pre: string): Pred {
    if (f.kind === 'default') {
      const re = wordRegex(`${pre}*`);
      return atAny(this.paths(f), this.text((s) => re.test(s)));
    }
    if (f.kind === 'tag') {
      const want = `${f.name}:${pre}`;
      return this.anyElement((t) => t.startsWith(want));
    }
    return atAny(this.paths(f), this.text((s) => s.startsWith(pre)));
  }

  wildcard(f: Field, w: string): Pred {
    if (f.kind === 'default') {
      const re = wordRegex(w);
      return atAny(this.paths(f), this.text((s) => re.test(s)));
    }
    if (f.kind === 'tag') {
      const re = wildcardRegex(`${f.name}:${w}`);
      return this.anyElement((t) => re.test(t));
    }
    const re = wildcardRegex(w);
    return atAny(this.paths(f), this.text((s) => re.test(s)));
  }

  compare(f: Field, op: Cmp, c: CmpValue): Pred {
    const rhs = cmpText(c);
    if (f.kind === 'attribute') {
      const numeric = c.t === 'int' || c.t === 'float';
      return atAny(this.paths(f), (v) => {
        const n = typeof v === 'number' ? v : v instanceof Float ? v.value : undefined;
        if (n !== undefined && numeric) return order(n, op, c.v);
        if (this.event) return typeof v === 'string' && order(v, op, rhs);
        return order(displayText(v), op, rhs);
      });
    }
    if (f.kind === 'tag') {
      // the condition compares only elements of this tag; VRL compares every `name:value` element
      return this.anyElement((t) => {
        const idx = t.indexOf(':');
        return idx >= 0 && (!this.event || t.slice(0, idx) === f.name) && order(t.slice(idx + 1), op, rhs);
      });
    }
    return atAny(this.paths(f), this.text((s) => order(s, op, rhs)));
  }

  range(f: Field, lower: CmpValue, lowerIncl: boolean, upper: CmpValue, upperIncl: boolean): Pred {
    if (lower.t === 'unbounded' && upper.t === 'unbounded') return this.exists(f);
    if (lower.t === 'unbounded') return this.compare(f, upperIncl ? '<=' : '<', upper);
    if (upper.t === 'unbounded') return this.compare(f, lowerIncl ? '>=' : '>', lower);
    const lo = this.compare(f, lowerIncl ? '>=' : '>', lower);
    const hi = this.compare(f, upperIncl ? '<=' : '<', upper);
    return (v) => lo(v) && hi(v);
  }
}

function build(n: Node, l: Lookups): Pred {
  const any = (fs: Pred[]): Pred => (fs.length === 1 ? fs[0]! : (v) => fs.some((f) => f(v)));
  switch (n.k) {
    case 'all':
      return () => true;
    case 'none':
      return () => false;
    case 'exists':
      return any(fieldsOf(n.attr).map((f) => l.exists(f)));
    case 'missing': {
      const fs = fieldsOf(n.attr).map((f) => l.exists(f));
      return (v) => fs.every((f) => !f(v));
    }
    case 'term':
      return any(fieldsOf(n.attr).map((f) => l.equals(f, n.value)));
    case 'prefix':
      return any(fieldsOf(n.attr).map((f) => l.prefix(f, n.prefix)));
    case 'wildcard':
      return any(fieldsOf(n.attr).map((f) => l.wildcard(f, n.wildcard)));
    case 'compare':
      return any(fieldsOf(n.attr).map((f) => l.compare(f, n.op, n.value)));
    case 'range':
      return any(fieldsOf(n.attr).map((f) => l.range(f, n.lower, n.lowerIncl, n.upper, n.upperIncl)));
    case 'not': {
      const inner = build(n.node, l);
      return (v) => !inner(v);
    }
    case 'and': {
      const fs = n.nodes.map((x) => build(x, l));
      return (v) => fs.every((f) => f(v));
    }
    case 'or': {
      const fs = n.nodes.map((x) => build(x, l));
      return (v) => fs.some((f) => f(v));
    }
  }
}

const LOOKUPS: Record<QueryTarget, Lookups> = { value: new Lookups('value'), event: new Lookups('event') };

/**
 * Compiles a Datadog search query into a predicate over an object (`value`, VRL's semantics) or
 * over a log event's fields (`event`, the condition's); throws {@link DatadogQueryError}.
 */
export function compileDatadogQuery(query: string, target: QueryTarget = 'value'): (v: Value) => boolean {
  return build(new QueryParser(query).root(), LOOKUPS[target]);
}
