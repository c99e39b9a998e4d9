/** redact: masks matches of filters (patterns, US social security numbers) in strings, recursively. */
import { createHash } from 'node:crypto';
import { type ObjectValue, type Value, isObject } from '../../lib/value.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { globalOf } from '../regex.js';
import { displayValue } from '../../lib/value-display.js';
import { SHA2, SHA3 } from './hashes.js';

const SSN = /(?:00[1-9]|0[1-9][0-9]|[1-578][0-9]{2}|6[0-57-9][0-9]|66[0-57-9])-(?:0[1-9]|[1-9]0|[1-9][1-9])-(?:000[1-9]|00[1-9]0|0[1-9]00|[1-9]000|[1-9]{4})/g;

type Pattern = RegExp | string;
type Redactor = (match: string) => string;

function filterOf(v: Value): Pattern[] {
  if (v instanceof RegExp) return [globalOf(v)];
  if (typeof v === 'string') {
    if (v === 'us_social_security_number') return [SSN];
    throw new Error(v === 'pattern' ? 'pattern cannot be used without arguments' : 'unknown filter name');
  }
  if (isObject(v)) {
    const t = v.type;
    if (t === undefined) throw new Error('filters specified as objects must have type parameter');
    if (typeof t !== 'string') throw new Error('type key in filters must be a string');
    if (t === 'us_social_security_number') return [SSN];
    if (t !== 'pattern') throw new Error('unknown filter name');
    const ps = v.patterns;
    if (ps === undefined) throw new Error('pattern filter must have `patterns` specified');
    if (!Array.isArray(ps)) throw new Error('`patterns` must be array of regular expression literals');
    return ps.map((p) => {
      if (p instanceof RegExp) return globalOf(p);
      if (typeof p === 'string') return p;
      throw new Error('`patterns` must be regular expressions');
    });
  }
  throw new Error('unknown literal for filter, must be a regex, filter name, or object');
}

function hasher(algo: string, encoding: Value | undefined): Redactor {
  if (encoding !== undefined && encoding !== 'base64' && encoding !== 'base16') throw new Error('unknown encoding');
  const enc = encoding === 'base16' ? 'hex' : 'base64';
  return (m) => createHash(algo).update(m).digest(enc);
}

function redactorOf(v: Value | undefined): Redactor {
  if (v === undefined || v === 'full') return () => '[REDACTED]';
  if (v === 'sha2') return hasher('sha512-256', undefined);
  if (v === 'sha3') return hasher('sha3-512', undefined);
  if (typeof v === 'string') throw new Error('unknown name of redactor');
  if (!isObject(v)) throw new Error('unknown literal for redactor, must be redactor name or object');
  const t = v.type;
  if (typeof t !== 'string') throw new Error('redactor specified as objects must have type parameter');
  if (t === 'full') return () => '[REDACTED]';
  if (t === 'text') {
    const r = v.replacement;
    if (r === undefined) throw new Error('text redactor must have `replacement` specified');
    if (typeof r !== 'string') throw new Error('`replacement` must be a string');
    return () => r;
  }
  if (t === 'sha2' || t === 'sha3') {
    const table = t === 'sha2' ? SHA2 : SHA3;
    const variant = v.variant === undefined ? (t === 'sha2' ? 'SHA-512/256' : 'SHA3-512') : v.variant;
    const algo = typeof variant === 'string' ? table[variant] : undefined;
    if (!algo) throw new Error(`invalid ${t} variant`);
    return hasher(algo, v.encoding);
  }
  throw new Error('unknown `type` for `redactor`');
}

function redact(v: Value, filters: Pattern[][], r: Redactor): Value {
  if (typeof v === 'string') {
    let s = v;
    for (const f of filters) for (const p of f) s = typeof p === 'string' ? s.split(p).join(r(p)) : s.replace(p, (m) => r(m));
    return s;
  }
  if (Array.isArray(v)) return v.map((x) => redact(x, filters, r));
  if (isObject(v)) {
    const out: ObjectValue = {};
    for (const k in v) out[k] = redact(v[k]!, filters, r);
    return out;
  }
  return v;
}

/** The functions of this file, for the stdlib list. */
export const redactFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'redact',
    description: 'Replaces matches of patterns or filters in a value.',
    params: [
      { name: 'value', kind: K.BYTES | K.OBJECT | K.ARRAY, required: true },
      { name: 'filters', kind: K.ARRAY, required: true },
      { name: 'redactor', kind: K.OBJECT | K.BYTES },
    ],
    returns: (args) => args[0]!.kind,
    prepare: (args) => {
      const f = args[1]!;
      if (!f.isConstant || !Array.isArray(f.constant)) throw new FunctionCompileError('expected static expression', 'filters');
      const filters: Pattern[][] = [];
      for (const x of f.constant) {
        try {
          filters.push(filterOf(x));
        } catch (e) {
          throw new FunctionCompileError((e as Error).message, 'filters', displayValue(x));
        }
      }
      const ra = args[2]!;
      let redactor: Redactor;
      try {
        if (ra.present && !ra.isConstant) throw new Error('expected static expression');
        redactor = redactorOf(ra.present ? ra.constant : undefined);
      } catch (e) {
        throw new FunctionCompileError((e as Error).message, 'redactor', ra.constant === undefined ? '' : displayValue(ra.constant));
      }
      return { filters, redactor };
    },
    call: ([v], env) => {
      const p = env.prepared as { filters: Pattern[][]; redactor: Redactor };
      return redact(v!, p.filters, p.redactor);
    },
  }),
];
