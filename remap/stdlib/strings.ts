/** String functions: search, replace, split/join, slicing, trimming, sieve, entropy. */
import { type Value, Float } from '../../lib/value.js';
import { type ArgInfo, type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { allMatches, globalOf, stateless } from '../regex.js';
import { opt, optInt, optStr, req } from './args.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

const S = K.BYTES;
function strFn(name: string, description: string, f: (s: string) => Value, returns: K.Kind = K.K_BYTES): FnDef {
  return defineFunction({ name, description, params: [req('value', S)], returns, call: ([v]) => f(v as string) });
}

/** Rust replacement syntax (`$1`, `${name}`, `$name`) to JS (`$1`, `$<name>`). */
export function jsReplacement(with_: string): string {
  return with_
    .replace(/\$\$/g, '\u0000')
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, '$<$1>')
    .replace(/\$\{(\d+)\}/g, '$$$1')
    .replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '$<$1>')
    .replace(/\u0000/g, '$$$$');
}

const charsOf = (s: string): string[] => Array.from(s);

/** The functions of this file, for the stdlib list. */
export const stringFunctions: readonly FnDef[] = [
  strFn('strip_whitespace', 'Removes leading and trailing whitespace.', (s) => s.trim()),
  strFn('strlen', 'Number of characters in a string.', (s) => charsOf(s).length, K.K_INTEGER),
  strFn('strip_ansi_escape_codes', 'Removes ANSI escape codes from a string.', (s) => s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g, '')),
  strFn('reverse_string', 'Reverses the characters of a string.', (s) => charsOf(s).reverse().join('')),
  defineFunction({
    name: 'contains',
    description: 'Whether a string contains a substring.',
    params: [req('value', S), req('substring', S), opt('case_sensitive', K.BOOLEAN)],
    returns: K.K_BOOLEAN,
    call: ([v, sub, cs]) => (cs === false ? (v as string).toLowerCase().includes((sub as string).toLowerCase()) : (v as string).includes(sub as string)),
  }),
  defineFunction({
    name: 'contains_all',
    description: 'Whether a string contains every given substring.',
    params: [req('value', S), req('substrings', K.ARRAY), opt('case_sensitive', K.BOOLEAN)],
    fallible: (args) => !K.elementKind(args[1]!.kind).isOnly(K.BYTES),
    returns: K.K_BOOLEAN,
    call: ([v, subs, cs]) => {
      const hay = cs === false ? (v as string).toLowerCase() : (v as string);
      return (subs as Value[]).every((x) => {
        if (typeof x !== 'string') return fail(`expected string, got ${K.valueKindName(x)}`);
        return hay.includes(cs === false ? x.toLowerCase() : x);
      });
    },
  }),
  defineFunction({
    name: 'starts_with',
    description: 'Whether a string starts with a substring.',
    params: [req('value', S), req('substring', S), opt('case_sensitive', K.BOOLEAN)],
    returns: K.K_BOOLEAN,
    call: ([v, sub, cs]) => (cs === false ? (v as string).toLowerCase().startsWith((sub as string).toLowerCase()) : (v as string).startsWith(sub as string)),
  }),
  defineFunction({
    name: 'ends_with',
    description: 'Whether a string ends with a substring.',
    params: [req('value', S), req('substring', S), opt('case_sensitive', K.BOOLEAN)],
    returns: K.K_BOOLEAN,
    call: ([v, sub, cs]) => (cs === false ? (v as string).toLowerCase().endsWith((sub as string).toLowerCase()) : (v as string).endsWith(sub as string)),
  }),
  defineFunction({
    name: 'replace',
    description: 'Replaces matches of a substring or regex.',
    params: [req('value', S), req('pattern', S | K.REGEX), req('with', S), opt('count', K.INTEGER)],
    returns: K.K_BYTES,
    call: ([v, p, w, c]) => {
      const s = v as string;
      const count = optInt(c, -1);
      if (count === 0) return s;
      if (typeof p === 'string') {
        if (count < 0) return s.split(p).join(w as string);
        let out = s;
        let from = 0;
        for (let i = 0; i < count; i++) {
          const idx = out.indexOf(p, from);
          if (idx < 0) break;
          out = out.slice(0, idx) + (w as string) + out.slice(idx + p.length);
          from = idx + (w as string).length;
        }
        return out;
      }
      const re = globalOf(p as RegExp);
      const repl = jsReplacement(w as string);
      if (count < 0) return s.replace(re, repl);
      let n = 0;
      return s.replace(re, (...m: unknown[]) => {
        if (n++ >= count) return m[0] as string;
        return (m[0] as string).replace(stateless(p as RegExp), repl);
      });
    },
  }),
  defineFunction({
    name: 'find',
    description: 'Position of the first match of a substring or regex in a string.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'pattern', kind: K.BYTES | K.REGEX, required: true },
      { name: 'from', kind: K.INTEGER },
    ],
    returns: K.k(K.INTEGER | K.NULL),
    call: ([v, p, f]) => {
      const s = v as string;
      const from = typeof f === 'number' ? f : 0;
      if (typeof p === 'string') {
        const i = s.indexOf(p, from);
        return i < 0 ? null : i;
      }
      const re = globalOf(p as RegExp);
      re.lastIndex = from;
      const m = re.exec(s);
      return m ? m.index : null;
    },
  }),
  defineFunction({
    name: 'split',
    description: 'Splits a string by a substring or regex.',
    fresh: true,
    params: [req('value', S), req('pattern', S | K.REGEX), opt('limit', K.INTEGER)],
    returns: K.arrayOf(K.K_BYTES),
    call: ([v, p, l]) => {
      const s = v as string;
      const limit = optInt(l, -1);
      if (limit === 0) return [];
      let parts: string[];
      if (typeof p === 'string') parts = p === '' ? ['', ...charsOf(s), ''] : s.split(p);
      else {
        parts = [];
        let last = 0;
        for (const m of allMatches(p as RegExp, s)) {
          if (m[0] === '' && m.index === 0) continue;
          parts.push(s.slice(last, m.index));
          last = m.index! + m[0].length;
        }
        parts.push(s.slice(last));
      }
      if (limit > 0 && parts.length > limit) {
        // the last piece keeps the rest of the input, separators included
        let pos = 0;
        const out: string[] = [];
        for (let i = 0; i < limit - 1; i++) {
          out.push(parts[i]!);
          pos += parts[i]!.length;
          const rest = s.slice(pos);
          const sep = typeof p === 'string' ? p.length : (stateless(p as RegExp).exec(rest)?.[0].length ?? 0);
          pos += sep;
        }
        out.push(s.slice(pos));
        return out;
      }
      return parts;
    },
  }),
  defineFunction({
    name: 'join',
    description: 'Joins an array of strings with an optional separator.',
    params: [req('value', K.ARRAY), opt('separator', S)],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, sep]) => {
      const arr = v as Value[];
      for (const x of arr) if (typeof x !== 'string') fail('all array items must be strings');
      return (arr as string[]).join(typeof sep === 'string' ? sep : '');
    },
  }),
  defineFunction({
    name: 'truncate',
    description: 'Shortens a string to a length, optionally with a suffix.',
    params: [req('value', S), req('limit', K.INTEGER), opt('ellipsis', K.BOOLEAN), opt('suffix', S)],
    returns: K.K_BYTES,
    call: ([v, l, e, suf]) => {
      const chars = charsOf(v as string);
      const limit = Math.max(0, l as number);
      if (chars.length <= limit) return v as string;
      const suffix = typeof suf === 'string' ? suf : e === true ? '...' : '';
      return chars.slice(0, limit).join('') + suffix;
    },
  }),
  defineFunction({
    name: 'slice',
    description: 'Part of a string or array between two positions.',
    params: [req('value', S | K.ARRAY), req('start', K.INTEGER), opt('end', K.INTEGER)],
    fallible: true,
    returns: (args: readonly ArgInfo[]) => {
      const k = args[0]!.kind;
      if (k.isOnly(K.BYTES)) return K.K_BYTES;
      // VRL keeps the input's kind (known items included) for an array
      if (k.isOnly(K.ARRAY)) return k;
      return K.k(K.BYTES | K.ARRAY);
    },
    call: ([v, s, e]) => {
      const isStr = typeof v === 'string';
      const bytes = isStr ? toBytes(v) : undefined;
      const len = bytes ? bytes.length : (v as Value[]).length;
      let start = s as number;
      let end = e === undefined || e === null ? len : (e as number);
      if (start < 0) start += len;
      if (end < 0) end += len;
      if (start < 0 || start > len || end > len || start > end) {
        return fail(`"start" must be between "${-len}" and "${len}"`);
      }
      if (bytes) return fromBytes(bytes.subarray(start, end));
      return (v as Value[]).slice(start, end);
    },
  }),
  defineFunction({
    name: 'length',
    description: 'Number of characters, elements or fields.',
    params: [req('value', K.ARRAY | K.OBJECT | S)],
    returns: K.K_INTEGER,
    call: ([v]) => (typeof v === 'string' ? toBytes(v).length : Array.isArray(v) ? v.length : Object.keys(v as object).length),
  }),
  defineFunction({
    name: 'sieve',
    description: 'Keeps only characters matching a pattern.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'permitted_characters', kind: K.REGEX, required: true },
      { name: 'replace_single', kind: K.BYTES },
      { name: 'replace_repeated', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v, p, rs, rr]) => {
      const re = stateless(p as RegExp);
      const single = optStr(rs, '');
      const repeated = optStr(rr, '');
      let out = '';
      let run = 0;
      const flush = (): void => {
        if (run === 1) out += single;
        else if (run > 1) out += repeated;
        run = 0;
      };
      for (const ch of v as string) {
        if (re.test(ch)) {
          flush();
          out += ch;
        } else run++;
      }
      flush();
      return out;
    },
  }),
  defineFunction({
    name: 'shannon_entropy',
    description: 'Shannon entropy of a string by bytes, code points or graphemes.',
    params: [req('value', S), opt('segmentation', S)],
    fallible: (args) => args[1]!.present && !args[1]!.isConstant,
    returns: K.K_FLOAT,
    prepare: (args) => {
      const seg = args[1]!.isConstant ? args[1]!.constant : 'byte';
      if (seg !== 'byte' && seg !== 'codepoint' && seg !== 'grapheme') throw new FunctionCompileError('unknown segmentation', 'segmentation');
      return seg;
    },
    call: ([v], env) => {
      const s = v as string;
      const units: (string | number)[] =
        env.prepared === 'byte' ? [...toBytes(s)] : env.prepared === 'codepoint' ? Array.from(s) : [...new Intl.Segmenter().segment(s)].map((x) => x.segment);
      const counts = new Map<string | number, number>();
      for (const u of units) counts.set(u, (counts.get(u) ?? 0) + 1);
      let h = 0;
      for (const c of counts.values()) {
        const p = c / units.length;
        h -= p * Math.log2(p);
      }
      return new Float(h);
    },
  }),
];
