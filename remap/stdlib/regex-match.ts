/** Regex matching: match, match_any, match_array, parse_regex, parse_regex_all. */
import type { ObjectValue, Value } from '../../lib/value.js';
import { type ArgInfo, type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { groupInfo, nextIndex, stateless } from '../regex.js';
import { type CapturePlan, capturePlan } from '../regex-captures.js';
import { opt, req } from './args.js';
import { fail } from './errors.js';

/** Object of one match: numbered groups (participating ones, renumbered) then named groups. */
function captures(m: RegExpExecArray, plan: CapturePlan, numeric: boolean): ObjectValue {
  if (!numeric) return plan.named(m);
  const out: ObjectValue = {};
  let idx = 0;
  for (let i = 0; i < m.length; i++) if (m[i] !== undefined) out[String(idx++)] = m[i]!;
  const named = plan.named(m);
  for (const n in named) out[n] = named[n]!;
  return out;
}

/** The plan prepared at compile time for a literal pattern, else the pattern's own (made once per regex). */
const planFor = (p: Value | undefined, prepared: unknown): CapturePlan => (prepared as CapturePlan | undefined) ?? capturePlan(p as RegExp);

/** A literal pattern's plan, made while the program compiles. */
function preparePlan(args: readonly ArgInfo[]): CapturePlan | undefined {
  const p = args[1]!;
  return p.isConstant && p.constant instanceof RegExp ? capturePlan(p.constant) : undefined;
}

function regexKind(args: readonly ArgInfo[]): K.Kind {
  const p = args[1]!;
  if (!p.isConstant || !(p.constant instanceof RegExp)) return K.objectOf(K.k(K.BYTES | K.NULL));
  const { names, count } = groupInfo(p.constant);
  const fields = new Map<string, K.Kind>();
  for (let i = 0; i < count; i++) fields.set(String(i), K.k(K.BYTES | K.NULL));
  for (const n of names) fields.set(n, K.K_BYTES);
  return K.objectKind(fields);
}

const PARSE_PARAMS = [req('value', K.BYTES), req('pattern', K.REGEX), opt('numeric_groups', K.BOOLEAN)];

/** The functions of this file, for the stdlib list. */
export const regexFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'match',
    description: 'Whether a string matches a regex.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'pattern', kind: K.REGEX, required: true },
    ],
    returns: K.K_BOOLEAN,
    call: ([v, p]) => {
      return stateless(p as RegExp).test(v as string);
    },
  }),
  defineFunction({
    name: 'match_any',
    description: 'Whether a string matches any of the regexes.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'patterns', kind: K.ARRAY, required: true },
    ],
    returns: K.K_BOOLEAN,
    call: ([v, ps]) => (ps as Value[]).some((p) => p instanceof RegExp && stateless(p).test(v as string)),
  }),
  defineFunction({
    name: 'match_array',
    description: 'Whether any (or all) elements of an array match a regex.',
    params: [
      { name: 'value', kind: K.ARRAY, required: true },
      { name: 'pattern', kind: K.REGEX, required: true },
      { name: 'all', kind: K.BOOLEAN },
    ],
    returns: K.K_BOOLEAN,
    call: ([v, p, all]) => {
      const re = stateless(p as RegExp);
      const test = (x: Value): boolean => typeof x === 'string' && re.test(x);
      return all === true ? (v as Value[]).every(test) : (v as Value[]).some(test);
    },
  }),
  defineFunction({
    name: 'parse_regex',
    description: 'Captures the named and numbered groups of the first regex match.',
    fresh: true,
    params: PARSE_PARAMS,
    fallible: true,
    returns: regexKind,
    prepare: preparePlan,
    call: ([v, p, n], env) => {
      const plan = planFor(p, env.prepared);
      const m = plan.first.exec(v as string);
      if (!m) return fail('could not find any pattern matches');
      return captures(m, plan, n === true);
    },
  }),
  defineFunction({
    name: 'parse_regex_all',
    description: 'Captures the groups of every regex match.',
    fresh: true,
    params: PARSE_PARAMS,
    fallible: true,
    returns: (args) => K.arrayOf(regexKind(args)),
    prepare: preparePlan,
    call: ([v, p, n], env) => {
      const plan = planFor(p, env.prepared);
      const s = v as string;
      const out: Value[] = [];
      const g = plan.every;
      let at = 0;
      for (;;) {
        g.lastIndex = at;
        const m = g.exec(s);
        if (m === null) break;
        out.push(captures(m, plan, n === true));
        at = m[0] === '' ? nextIndex(s, g.lastIndex, g.unicode) : g.lastIndex;
      }
      return out;
    },
  }),
];
