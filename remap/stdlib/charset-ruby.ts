/** decode_charset / encode_charset (legacy encodings through the WHATWG decoders) and parse_ruby_hash. */
import { TextDecoder } from 'node:util';
import { type ObjectValue, type Value, Float } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail, fromBytes, toBytes } from './util.js';

function decoder(label: string): TextDecoder {
  try {
    return new TextDecoder(label, { fatal: true });
  } catch {
    return fail(`Unknown charset: ${label}`);
  }
}

const reverseTables = new Map<string, Map<string, number[]>>();

/** Character → bytes for a legacy encoding, built once by decoding every 1- and 2-byte sequence. */
function reverseTable(label: string): Map<string, number[]> {
  const dec = decoder(label);
  const key = dec.encoding;
  let t = reverseTables.get(key);
  if (t) return t;
  t = new Map();
  const tryBytes = (bytes: number[]): void => {
    try {
      const ch = dec.decode(new Uint8Array(bytes));
      if (ch.length > 0 && [...ch].length === 1 && !t!.has(ch)) t!.set(ch, bytes);
    } catch {
      /* not a complete character */
    }
  };
  for (let a = 0; a < 256; a++) tryBytes([a]);
  for (let a = 0x80; a < 256; a++) for (let b = 0x40; b < 256; b++) tryBytes([a, b]);
  reverseTables.set(key, t);
  return t;
}

function encodeCharset(text: string, label: string): Buffer {
  const dec = decoder(label);
  if (dec.encoding === 'utf-8') return toBytes(text);
  if (dec.encoding === 'utf-16le' || dec.encoding === 'utf-16be') {
    const b = Buffer.from(text, 'utf16le');
    if (dec.encoding === 'utf-16be') b.swap16();
    return b;
  }
  const t = reverseTable(label);
  const out: number[] = [];
  for (const ch of text) {
    const bytes = t.get(ch);
    if (!bytes) return fail(`Unable to encode character ${JSON.stringify(ch)} with charset ${label}`);
    out.push(...bytes);
  }
  return Buffer.from(out);
}

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
export const charsetRubyFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'decode_charset',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'from_charset', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, c]) => {
      try {
        return decoder(c as string).decode(toBytes(v as string));
      } catch (e) {
        if ((e as Error).message.startsWith('Unknown charset')) throw e;
        return fail(`Unable to decode value with charset ${c as string}`);
      }
    },
  }),
  defineFunction({
    name: 'encode_charset',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'to_charset', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, c]) => fromBytes(encodeCharset(v as string, c as string)),
  }),
  defineFunction({
    name: 'parse_ruby_hash',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v]) => parseRubyHash(v as string),
  }),
];
