/**
 * Reading a regex match into a remap object (parse_regex, parse_regex_all), prepared once per
 * pattern. V8 builds a `groups` object on every match of a pattern with named groups, and an
 * object filled field by field changes shape at each field; so the match runs on a twin of the
 * pattern whose groups are unnamed (same numbering, same {@link RegexMode}), names are read by
 * group number, and the object of named captures comes from one literal of its final shape.
 */
import type { ObjectValue } from '../lib/value.js';
import { GuardedRegExp } from '../lib/bounded-regex.js';
import { groupInfo, jsSource, stateless } from './regex.js';

/** How to read the captures of one pattern. */
export interface CapturePlan {
  /** Runs the pattern from the start of a string; `exec` ignores and keeps `lastIndex`. */
  readonly first: RegExp;
  /** The global form, for a loop over every match (callers set `lastIndex` before each `exec`). */
  readonly every: RegExp;
  /** Named groups in group order. */
  readonly names: readonly string[];
  /** The named captures of a match, in `names` order; null for a group that did not take part. */
  readonly named: (m: RegExpExecArray) => ObjectValue;
}

/** The pattern with `(?<name>` turned into `(`, and the names with their group numbers; JS syntax. */
export function unnameGroups(js: string): { readonly source: string; readonly names: string[]; readonly numbers: number[] } {
  let out = '';
  let group = 0;
  let inClass = false;
  const names: string[] = [];
  const numbers: number[] = [];
  for (let i = 0; i < js.length; i++) {
    const c = js[i]!;
    if (c === '\\') {
      out += js.slice(i, i + 2);
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '(' && js[i + 1] !== '?') {
      group++;
      out += c;
    } else if (c === '(' && js[i + 2] === '<' && js[i + 3] !== '=' && js[i + 3] !== '!') {
      const end = js.indexOf('>', i + 3);
      // not a group name after all (V8 would have refused the pattern): the check against V8's names falls back
      if (end < 0) return { source: js, names: [], numbers: [] };
      group++;
      names.push(js.slice(i + 3, end));
      numbers.push(group);
      out += '(';
      i = end;
    } else {
      out += c;
    }
  }
  return { source: out, names, numbers };
}

/** Field names an object literal can take as written (`__proto__` would set the prototype instead). */
const plainKey = (k: string): boolean => k !== '__proto__';

/**
 * One object literal with every name as a field: V8 allocates it at once with its final shape.
 * Names are quoted by JSON.stringify, so a name cannot change the generated code. Undefined where
 * the process forbids code generation.
 */
function literalOf(names: readonly string[], numbers: readonly number[]): ((m: RegExpExecArray) => ObjectValue) | undefined {
  const fields = names.map((n, i) => `${JSON.stringify(n)}: m[${numbers[i]!}] ?? null`);
  try {
    return new Function('m', `return { ${fields.join(', ')} };`) as (m: RegExpExecArray) => ObjectValue;
  } catch {
    // code generation from strings is disallowed in this process
    return undefined;
  }
}

function fieldByField(names: readonly string[], numbers: readonly number[]): (m: RegExpExecArray) => ObjectValue {
  return (m) => {
    const out: ObjectValue = {};
    for (let i = 0; i < names.length; i++) out[names[i]!] = m[numbers[i]!] ?? null;
    return out;
  };
}

function twin(re: RegExp, source: string, flags: string): RegExp {
  return re instanceof GuardedRegExp ? new GuardedRegExp(source, flags, re.mode) : new RegExp(source, flags);
}

function planOf(re: RegExp): CapturePlan {
  const base = stateless(re);
  const info = groupInfo(re);
  const un = unnameGroups(jsSource(re));
  // the scan must agree with V8 on names, order and group count; else matches keep their `groups`
  if (un.names.length > 0 && un.names.join('\0') === info.names.join('\0') && groupCount(un.source) === info.count) {
    const named = (un.names.every(plainKey) && literalOf(un.names, un.numbers)) || fieldByField(un.names, un.numbers);
    return { first: twin(re, un.source, base.flags), every: twin(re, un.source, base.flags + 'g'), names: un.names, named };
  }
  const { names } = info;
  return { first: base, every: twin(re, jsSource(re), base.flags + 'g'), names, named: (m) => byName(m, names) };
}

/** Groups of a JS pattern, the whole match included; 0 when it does not compile without flags. */
function groupCount(source: string): number {
  try {
    // an empty alternative matches '' at once
    return new RegExp(source + '|').exec('')!.length;
  } catch {
    return 0;
  }
}

function byName(m: RegExpExecArray, names: readonly string[]): ObjectValue {
  const out: ObjectValue = {};
  for (const n of names) out[n] = m.groups?.[n] ?? null;
  return out;
}

const plans = new WeakMap<RegExp, CapturePlan>();

/** The capture plan of a regex, made once per regex. */
export function capturePlan(re: RegExp): CapturePlan {
  let plan = plans.get(re);
  if (plan === undefined) {
    plan = planOf(re);
    plans.set(re, plan);
  }
  return plan;
}
