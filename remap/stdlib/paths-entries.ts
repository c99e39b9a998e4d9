/** Path and entry helpers: basename, dirname, split_path, to/from_entries, parse_yaml, uuid_from_friendly_id, decode_mime_q. */
import { parse as parseYamlText } from 'yaml';
import { type ObjectValue, type Value, Float, isObject } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './util.js';

function yamlToValue(j: unknown): Value {
  if (j === null || j === undefined) return null;
  if (typeof j === 'string' || typeof j === 'boolean') return j;
  if (typeof j === 'number') return Number.isInteger(j) ? j : new Float(j);
  if (j instanceof Date) return j.toISOString();
  if (Array.isArray(j)) return j.map(yamlToValue);
  if (typeof j === 'object') {
    const o: ObjectValue = {};
    for (const [k, v] of Object.entries(j as Record<string, unknown>)) o[k] = yamlToValue(v);
    return o;
  }
  return String(j);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The functions of this file, for the stdlib list. */
export const pathEntryFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'basename',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.k(K.BYTES | K.NULL),
    call: ([v]) => {
      const parts = (v as string).split('/').filter(Boolean);
      return parts.length ? parts[parts.length - 1]! : null;
    },
  }),
  defineFunction({
    name: 'dirname',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      const s = v as string;
      const abs = s.startsWith('/');
      const parts = s.split('/').filter(Boolean);
      parts.pop();
      if (parts.length === 0) return abs ? '/' : '.';
      return (abs ? '/' : '') + parts.join('/');
    },
  }),
  defineFunction({
    name: 'split_path',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.arrayOf(K.K_BYTES),
    call: ([v]) => {
      const s = v as string;
      const parts = s.split('/').filter(Boolean);
      return s.startsWith('/') ? ['/', ...parts] : parts;
    },
  }),
  defineFunction({
    name: 'to_entries',
    params: [{ name: 'value', kind: K.OBJECT | K.ARRAY, required: true }],
    returns: K.arrayOf(K.objectKind(new Map([['key', K.k(K.BYTES | K.INTEGER)], ['value', K.ANY.without(K.UNDEFINED)]]))),
    call: ([v]) =>
      Array.isArray(v) ? v.map((x, i) => ({ key: i, value: x })) : Object.keys(v as ObjectValue).sort().map((k) => ({ key: k, value: (v as ObjectValue)[k]! })),
  }),
  defineFunction({
    name: 'from_entries',
    params: [{ name: 'value', kind: K.ARRAY, required: true }],
    fallible: (args) => {
      const k = args[0]!.kind;
      if (!k.isOnly(K.ARRAY)) return true;
      if (k.items.size === 0 && k.itemsUnknown === undefined) return false;
      return !K.elementKind(k).isOnly(K.OBJECT);
    },
    returns: K.K_OBJECT,
    call: ([v]) => {
      const out: ObjectValue = {};
      for (const e of v as Value[]) {
        if (!isObject(e)) return fail('expected array of objects');
        const k = e.key;
        if (typeof k !== 'string') return fail('expected "key" field to be a string');
        out[k] = e.value ?? null;
      }
      return out;
    },
  }),
  defineFunction({
    name: 'parse_yaml',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.ANY.without(K.UNDEFINED),
    call: ([v]) => {
      try {
        return yamlToValue(parseYamlText(v as string));
      } catch (e) {
        return fail(`unable to parse yaml: ${(e as Error).message.split('\n')[0]}`);
      }
    },
  }),
  defineFunction({
    name: 'uuid_from_friendly_id',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      let n = 0n;
      for (const c of v as string) {
        const d = BASE62.indexOf(c);
        if (d < 0) return fail('failed to decode friendly id');
        n = n * 62n + BigInt(d);
      }
      if (n >= 1n << 128n) return fail('failed to decode friendly id: value too large');
      const h = n.toString(16).padStart(32, '0');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  }),
  defineFunction({
    name: 'decode_mime_q',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) =>
      (v as string).replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_m, charset: string, enc: string, text: string) => {
        let bytes: Buffer;
        if (enc.toLowerCase() === 'b') bytes = Buffer.from(text, 'base64');
        else {
          const raw = text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16)));
          bytes = Buffer.from(raw, 'latin1');
        }
        try {
          return new TextDecoder(charset.toLowerCase()).decode(bytes);
        } catch {
          return fail(`unknown charset: ${charset}`);
        }
      }),
  }),
];
