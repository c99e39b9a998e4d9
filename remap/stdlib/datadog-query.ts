/**
 * match_datadog_query: the Datadog log search syntax (terms, `field:value`, `@attribute`, phrases,
 * wildcards, prefixes, comparisons, ranges, `_exists_`/`_missing_`, AND/OR/NOT, groups) compiled
 * once into a predicate over an object.
 */
import { type Value, Float, isObject } from '../../lib/value.js';
import { type Path, parsePath } from '../../lib/path.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { displayValue } from './display.js';

type Cmp = '<' | '<=' | '>' | '>=';
type CmpValue = { t: 'int'; v: number } | { t: 'float'; v: number } | { t: 'str'; v: string } | { t: 'unbounded' };

type Node =
  | { k: 'all' }
  | { k: 'none' }
  | { k: 'exists'; attr: string }
  | { k: 'missing'; attr: string }
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
const INVALID_START = new Set([' ', '\t', '\r', '\n', '\u3000', '"', '(', ')', '[', ']', '{', '}', '+', '-', '!', ':', '~', '^', '?', '*', '\\', '>', '=', '<']);

class QueryError extends Error {}

function unescape(s: string): string {
  return s.replace(/\\(.)/gs, '$1');
}

function cmpValue(s: string): CmpValue {
  if (s === '*') return { t: 'unbounded' };
  if (/^-?\d+$/.test(s)) return { t: 'int', v: Number(s) };
  if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return { t: 'float', v: Number(s) };
  return { t: 'str', v: s };
}

/** Recursive-descent parser over the query grammar. */
class QueryParser {
  i = 0;
  constructor(readonly s: string) {}
  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  atEnd(): boolean {
    return this.i >= this.s.length;
  }
  /** A term at `at` (raw text, escapes kept), or undefined. `glob` also accepts * and ?. */
  termAt(at: number, glob = false): string | undefined {
    const s = this.s;
    let j = at;
    const startOk = (c: string | undefined): boolean => c !== undefined && (!INVALID_START.has(c) || (glob && (c === '*' || c === '?')));
    if (s[j] === '\\' && j + 1 < s.length) j += 2;
    else if (startOk(s[j])) j++;
    else return undefined;
    for (;;) {
      const c = s[j];
      if (c === '\\' && j + 1 < s.length) j += 2;
      else if (c !== undefined && (startOk(c) || c === '-' || c === '+' || c === '=')) j++;
      else break;
    }
    return s.slice(at, j);
  }
  keywordAt(at: number): string | undefined {
    for (const k of ['AND', 'OR', 'NOT', '&&', '||']) if (this.s.startsWith(k, at)) return k;
    return undefined;
  }
  termEnd(at: number): boolean {
    const c = this.s[at];
    return c === undefined || /\s/.test(c) || c === ')' || c === ']' || c === '}';
  }

  query(field: string, close: boolean): Node {
    const groups: Node[][] = [];
    let group: Node[] = [];
    let negate = false;
    for (;;) {
      this.ws();
      if (this.atEnd() || (close && this.s[this.i] === ')')) break;
      const kw = this.keywordAt(this.i);
      if (kw === 'AND' || kw === '&&') {
        this.i += kw.length;
        continue;
      }
      if (kw === 'OR' || kw === '||') {
        this.i += kw.length;
        groups.push(group);
        group = [];
        continue;
      }
      if (kw === 'NOT' || this.s[this.i] === '-') {
        this.i += kw === 'NOT' ? 3 : 1;
        negate = true;
        continue;
      }
      if (this.s[this.i] === '+') {
        this.i++;
        continue;
      }
      let node = this.multiterm(field) ?? this.clause(field);
      if (negate) {
        node = { k: 'not', node };
        negate = false;
      }
      group.push(node);
    }
    groups.push(group);
    const or = boolean('or', groups.map((g) => boolean('and', g)));
    if (or.k === 'not' && or.node.k === 'all') return { k: 'none' };
    return or;
  }

  /** Bare terms in a row (not fields, not before AND/OR) search the default field as one text. */
  multiterm(field: string): Node | undefined {
    const terms: string[] = [];
    let at = this.i;
    for (;;) {
      if (this.keywordAt(at) || this.s[at] === '-') break;
      const t = this.termAt(at);
      if (t === undefined) break;
      const after = at + t.length;
      const c = this.s[after];
      if (c === ':' || c === '*') break;
      let k = after;
      while (k < this.s.length && /\s/.test(this.s[k]!)) k++;
      const kw = this.keywordAt(k);
      if (k > after && (kw === 'AND' || kw === 'OR' || kw === '&&' || kw === '||')) break;
      if (!this.termEnd(after)) break;
      terms.push(unescape(t));
      at = k;
      this.i = after;
      if (kw === 'NOT') break;
    }
    if (terms.length === 0) return undefined;
    return { k: 'term', attr: field, value: terms.join(' ') };
  }

  clause(field: string): Node {
    const s = this.s;
    if (s.startsWith('*:*', this.i)) {
      this.i += 3;
      return { k: 'all' };
    }
    let f = field;
    const t = this.termAt(this.i);
    if (t !== undefined && s[this.i + t.length] === ':' && !this.keywordAt(this.i)) {
      f = t;
      this.i += t.length + 1;
    }
    if (s[this.i] === '(') {
      this.i++;
      const q = this.query(f, true);
      this.ws();
      if (s[this.i] !== ')') throw new QueryError('expected ")"');
      this.i++;
      return q;
    }
    return this.value(f);
  }

  value(f: string): Node {
    const s = this.s;
    const attr = unescape(f);
    if (s[this.i] === '*' && this.termEnd(this.i + 1)) {
      this.i++;
      if (f === DEFAULT_FIELD) return { k: 'all' };
      return { k: 'wildcard', attr, wildcard: '*' };
    }
    if (s[this.i] === '"') {
      let j = this.i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) throw new QueryError('unterminated phrase');
      const phrase = unescape(s.slice(this.i + 1, j));
      this.i = j + 1;
      if (f === '_exists_') return { k: 'exists', attr: phrase };
      if (f === '_missing_') return { k: 'missing', attr: phrase };
      return { k: 'term', attr, value: phrase };
    }
    const op = /^(>=|<=|>|<)/.exec(s.slice(this.i));
    if (op) {
      this.i += op[0].length;
      const num = /^-?\d+(\.\d+)?(E-?\d+(\.\d+)?)?/.exec(s.slice(this.i));
      let v: CmpValue;
      if (num && this.termEnd(this.i + num[0].length)) {
        v = cmpValue(num[0]);
        this.i += num[0].length;
      } else {
        const t = this.termAt(this.i);
        if (t === undefined) throw new QueryError('expected a comparison value');
        this.i += t.length;
        v = { t: 'str', v: unescape(t) };
      }
      return { k: 'compare', attr, op: op[0] as Cmp, value: v };
    }
    if (s[this.i] === '[' || s[this.i] === '{') {
      const m = /^([[{])\s*([^\s\]}]+)\s+TO\s+([^\s\]}]+)\s*([\]}])/.exec(s.slice(this.i));
      if (!m) throw new QueryError('invalid range');
      if ((m[1] === '[') !== (m[4] === ']')) throw new QueryError('invalid range');
      this.i += m[0].length;
      const incl = m[1] === '[';
      const bound = (x: string): CmpValue => cmpValue(x.length >= 2 && x.startsWith('"') && x.endsWith('"') ? x.slice(1, -1) : x);
      return { k: 'range', attr, lower: bound(m[2]!), lowerIncl: incl, upper: bound(m[3]!), upperIncl: incl };
    }
    const t = this.termAt(this.i);
    if (t !== undefined && this.termEnd(this.i + t.length) && !this.keywordAt(this.i)) {
      this.i += t.length;
      if (f === '_exists_') return { k: 'exists', attr: unescape(t) };
      if (f === '_missing_') return { k: 'missing', attr: unescape(t) };
      return { k: 'term', attr, value: unescape(t) };
    }
    const g = this.termAt(this.i, true);
    if (g !== undefined && this.termEnd(this.i + g.length)) {
      this.i += g.length;
      if (/^[^*?]*\*$/.test(g) && !g.endsWith('\\*')) return { k: 'prefix', attr, prefix: unescape(g.slice(0, -1)) };
      return { k: 'wildcard', attr, wildcard: unescape(g) };
    }
    throw new QueryError(`unexpected input at ${this.i}`);
  }
}

function boolean(k: 'and' | 'or', nodes: Node[]): Node {
  if (nodes.length === 0) return { k: 'all' };
  if (nodes.length === 1) return nodes[0]!;
  return { k, nodes };
}

type Field = { kind: 'default' | 'reserved' | 'attribute' | 'tag'; name: string };

function fieldsOf(attr: string): Field[] {
  if (attr === DEFAULT_FIELD) return DEFAULT_FIELDS.map((name) => ({ kind: 'default' as const, name }));
  const v = attr.replace(/@/g, '.');
  if (attr.startsWith('@')) return [{ kind: 'attribute', name: v }];
  if (DEFAULT_FIELDS.includes(v)) return [{ kind: 'default', name: v }];
  if (RESERVED.includes(v)) return [{ kind: 'reserved', name: v }];
  return [{ kind: 'tag', name: v }];
}

type Pred = (v: Value) => boolean;

function pathOf(f: Field): Path {
  if (f.kind === 'tag') return ['tags'];
  try {
    return parsePath(f.name);
  } catch {
    throw new QueryError('failed to build matcher');
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

const stringValue = (v: Value): string => (typeof v === 'string' ? v : displayValue(v));
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wordRegex = (s: string): RegExp => new RegExp(`\\b${escapeRe(s).replace(/\\\*/g, '.*')}\\b`);
const wildcardRegex = (s: string): RegExp => new RegExp(`^${escapeRe(s).replace(/\\\*/g, '.*')}$`);

function compareStr(a: string, op: Cmp, b: string): boolean {
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}
function compareNum(a: number, op: Cmp, b: number): boolean {
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}
const cmpText = (c: CmpValue): string => (c.t === 'unbounded' ? '*' : c.t === 'str' ? c.v : String(c.v));

function resolve(p: Path, f: (v: Value) => boolean): Pred {
  return (obj) => {
    const v = lookup(obj, p);
    return v !== undefined && f(v);
  };
}

function tagsOf(v: Value): string[] | undefined {
  return Array.isArray(v) ? v.map((x) => stringValue(x)) : undefined;
}

function exists(f: Field): Pred {
  const p = pathOf(f);
  if (f.kind === 'tag') {
    const prefix = `${f.name}:`;
    return resolve(p, (v) => tagsOf(v)?.some((t) => t === f.name || t.startsWith(prefix)) ?? false);
  }
  return resolve(p, () => true);
}

function equals(f: Field, value: string): Pred {
  const p = pathOf(f);
  if (f.kind === 'default') {
    const re = wordRegex(value);
    return resolve(p, (v) => typeof v === 'string' && re.test(v));
  }
  if (f.kind === 'reserved' && f.name === 'tags') return resolve(p, (v) => Array.isArray(v) && v.some((x) => x === value));
  if (f.kind === 'tag') {
    const want = `${f.name}:${value}`;
    return resolve(p, (v) => Array.isArray(v) && v.some((x) => x === want));
  }
  return resolve(p, (v) => stringValue(v) === value);
}

function prefix(f: Field, pre: string): Pred {
  const p = pathOf(f);
  if (f.kind === 'default') {
    const re = wordRegex(`${pre}*`);
    return resolve(p, (v) => typeof v === 'string' && re.test(v));
  }
  if (f.kind === 'tag') {
    const want = `${f.name}:${pre}`;
    return resolve(p, (v) => tagsOf(v)?.some((t) => t.startsWith(want)) ?? false);
  }
  return resolve(p, (v) => stringValue(v).startsWith(pre));
}

function wildcard(f: Field, w: string): Pred {
  const p = pathOf(f);
  if (f.kind === 'default') {
    const re = wordRegex(w);
    return resolve(p, (v) => typeof v === 'string' && re.test(v));
  }
  if (f.kind === 'tag') {
    const re = wildcardRegex(`${f.name}:${w}`);
    return resolve(p, (v) => tagsOf(v)?.some((t) => re.test(t)) ?? false);
  }
  const re = wildcardRegex(w);
  return resolve(p, (v) => re.test(stringValue(v)));
}

function compare(f: Field, op: Cmp, c: CmpValue): Pred {
  const p = pathOf(f);
  const rhs = cmpText(c);
  if (f.kind === 'attribute') {
    return resolve(p, (v) => {
      const isNum = typeof v === 'number' || v instanceof Float;
      if (isNum && (c.t === 'int' || c.t === 'float')) return compareNum(typeof v === 'number' ? v : v.value, op, c.v);
      return compareStr(stringValue(v), op, rhs);
    });
  }
  if (f.kind === 'tag') {
    return resolve(p, (v) =>
      (tagsOf(v) ?? []).some((t) => {
        const idx = t.indexOf(':');
        return idx >= 0 && compareStr(t.slice(idx + 1), op, rhs);
      }),
    );
  }
  return resolve(p, (v) => compareStr(stringValue(v), op, rhs));
}

function range(f: Field, lower: CmpValue, lowerIncl: boolean, upper: CmpValue, upperIncl: boolean): Pred {
  if (lower.t === 'unbounded' && upper.t === 'unbounded') return exists(f);
  if (lower.t === 'unbounded') return compare(f, upperIncl ? '<=' : '<', upper);
  if (upper.t === 'unbounded') return compare(f, lowerIncl ? '>=' : '>', lower);
  const lo = compare(f, lowerIncl ? '>=' : '>', lower);
  const hi = compare(f, upperIncl ? '<=' : '<', upper);
  return (v) => lo(v) && hi(v);
}

function build(n: Node): Pred {
  const any = (fs: Pred[]): Pred => (v) => fs.some((f) => f(v));
  switch (n.k) {
    case 'all':
      return () => true;
    case 'none':
      return () => false;
    case 'exists':
      return any(fieldsOf(n.attr).map(exists));
    case 'missing': {
      const fs = fieldsOf(n.attr).map(exists);
      return (v) => fs.every((f) => !f(v));
    }
    case 'term':
      return any(fieldsOf(n.attr).map((f) => equals(f, n.value)));
    case 'prefix':
      return any(fieldsOf(n.attr).map((f) => prefix(f, n.prefix)));
    case 'wildcard':
      return any(fieldsOf(n.attr).map((f) => wildcard(f, n.wildcard)));
    case 'compare':
      return any(fieldsOf(n.attr).map((f) => compare(f, n.op, n.value)));
    case 'range':
      return any(fieldsOf(n.attr).map((f) => range(f, n.lower, n.lowerIncl, n.upper, n.upperIncl)));
    case 'not': {
      const inner = build(n.node);
      return (v) => !inner(v);
    }
    case 'and': {
      const fs = n.nodes.map(build);
      return (v) => fs.every((f) => f(v));
    }
    case 'or': {
      const fs = n.nodes.map(build);
      return (v) => fs.some((f) => f(v));
    }
  }
}

/** Compiles a Datadog search query into a predicate over an object; throws Error when invalid. */
export function compileDatadogQuery(query: string): (v: Value) => boolean {
  const p = new QueryParser(query);
  const node = p.query(DEFAULT_FIELD, false);
  p.ws();
  if (!p.atEnd()) throw new QueryError(`unexpected input at ${p.i}`);
  return build(node);
}

/** The functions of this file, for the stdlib list. */
export const datadogQueryFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'match_datadog_query',
    params: [
      { name: 'value', kind: K.OBJECT, required: true },
      { name: 'query', kind: K.BYTES, required: true },
    ],
    returns: K.K_BOOLEAN,
    prepare: (args) => {
      const q = args[1]!;
      if (!q.isConstant || typeof q.constant !== 'string') throw new FunctionCompileError('expected static expression', 'query');
      try {
        return compileDatadogQuery(q.constant);
      } catch {
        throw new FunctionCompileError('failed to build matcher', 'query', JSON.stringify(q.constant));
      }
    },
    call: ([v], env) => (env.prepared as (x: Value) => boolean)(v!),
  }),
];
