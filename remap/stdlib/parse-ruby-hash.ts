/** parse_ruby_hash: Ruby's inspect format of a Hash to an object. */
import { type ObjectValue, type Value, Float } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** Parses Ruby's inspect format of a Hash (`{ "a" => 1, :b => nil }`). */
function parseRubyHash(s: string): Value {
  let i = 0;
  const ws = (): void => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const err = (): never => fail('unable to parse ruby hash: unexpected input at ' + i);
  const str = (q: string): string => {
    i++;
    let out = '';
    while (i < s.length && s[i] !== q) {
      if (s[i] === '\\' && i + 1 < s.length) {
        const c = s[i + 1]!;
        out += q === '"' ? ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[c] ?? c : c;
        i += 2;
      } else out += s[i++];
    }
    if (s[i] !== q) err();
    i++;
    return out;
  };
  const value = (): Value => {
    ws();
    const c = s[i];
    if (c === '{') return hash();
    if (c === '[') {
      i++;
      const arr: Value[] = [];
      ws();
      if (s[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] !== ']') err();
        i++;
        return arr;
      }
    }
    if (c === '"' || c === "'") return str(c);
    if (c === ':') {
      i++;
      if (s[i] === '"') return str('"');
      const m = /^[A-Za-z_][\w?!]*/.exec(s.slice(i));
      if (!m) err();
      i += m![0].length;
      return m![0];
    }
    const m = /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|nil)/.exec(s.slice(i));
    if (!m) return err();
    i += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    if (m[0] === 'nil') return null;
    return m[2] || m[3] ? new Float(Number(m[0])) : Number(m[0]);
  };
  const hash = (): ObjectValue => {
    i++;
    const out: ObjectValue = {};
    ws();
    if (s[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      ws();
      let key: string;
      const bare = /^([A-Za-z_][\w]*):(?!:)/.exec(s.slice(i));
      if (bare) {
        key = bare[1]!;
        i += bare[0].length;
      } else {
        const k = value();
        key = typeof k === 'string' ? k : String(k);
        ws();
        if (!s.startsWith('=>', i)) err();
        i += 2;
      }
      out[key] = value();
      ws();
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] !== '}') err();
      i++;
      return out;
    }
  };
  ws();
  if (s[i] !== '{') err();
  const v = hash();
  ws();
  if (i < s.length) err();
  return v;
}

/** The functions of this file, for the stdlib list. */
export const rubyHashFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_ruby_hash',
    description: 'Parses a Ruby hash literal.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v]) => parseRubyHash(v as string),
  }),
];
