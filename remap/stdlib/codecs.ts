/** Hashing and encodings: sha1/sha2/sha3/md5, hmac, crc32, base64, base16, percent, csv. */
import { createHash, createHmac } from 'node:crypto';
import type { Value } from '../../lib/value.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail, optStr, scalarToString } from './util.js';

const hash = (algo: string, v: string): string => createHash(algo).update(v, 'utf8').digest('hex');

const SHA2: Record<string, string> = { 'SHA-224': 'sha224', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512', 'SHA-512/224': 'sha512-224', 'SHA-512/256': 'sha512-256' };
const SHA3: Record<string, string> = { 'SHA3-224': 'sha3-224', 'SHA3-256': 'sha3-256', 'SHA3-384': 'sha3-384', 'SHA3-512': 'sha3-512' };

function variantFn(name: string, table: Record<string, string>, dflt: string): FnDef {
  return defineFunction({
    name,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'variant', kind: K.BYTES },
    ],
    prepare: (args) => {
      const v = args[1]!;
      if (v.present && v.isConstant && table[String(v.constant)] === undefined) throw new FunctionCompileError('unknown variant', 'variant');
      return undefined;
    },
    fallible: (args) => args[1]!.present && !args[1]!.isConstant,
    returns: K.K_BYTES,
    call: ([v, variant]) => {
      const algo = table[optStr(variant, dflt)];
      if (!algo) return fail('unknown variant');
      return hash(algo, v as string);
    },
  });
}

let crcTable: Uint32Array | undefined;
function crc32(buf: Buffer): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of buf) crc = crcTable[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function csvField(v: Value, delim: string): string {
  const s = scalarToString(v) ?? fail('csv encoding only supports scalar values');
  return /["\n\r]/.test(s) || s.includes(delim) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const codecFunctions: readonly FnDef[] = [
  defineFunction({ name: 'sha1', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BYTES, call: ([v]) => hash('sha1', v as string) }),
  defineFunction({ name: 'md5', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BYTES, call: ([v]) => hash('md5', v as string) }),
  variantFn('sha2', SHA2, 'SHA-512/256'),
  variantFn('sha3', SHA3, 'SHA3-512'),
  defineFunction({
    name: 'hmac',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'key', kind: K.BYTES, required: true },
      { name: 'algorithm', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, key, a]) => {
      const algo = { SHA1: 'sha1', 'SHA-224': 'sha224', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' }[optStr(a, 'SHA-256')];
      if (!algo) return fail('invalid algorithm');
      return createHmac(algo, key as string).update(v as string).digest('base64');
    },
  }),
  defineFunction({ name: 'crc32', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_INTEGER, call: ([v]) => crc32(Buffer.from(v as string)) }),
  defineFunction({
    name: 'encode_base64',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'padding', kind: K.BOOLEAN },
      { name: 'charset', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v, p, c]) => {
      let out = Buffer.from(v as string).toString(optStr(c, 'standard') === 'url_safe' ? 'base64url' : 'base64');
      if (optStr(c, 'standard') === 'url_safe' && p !== false) while (out.length % 4) out += '=';
      if (p === false) out = out.replace(/=+$/, '');
      return out;
    },
  }),
  defineFunction({
    name: 'decode_base64',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'charset', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, c]) => {
      const s = (v as string).replace(/=+$/, '');
      const ok = optStr(c, 'standard') === 'url_safe' ? /^[A-Za-z0-9_-]*$/ : /^[A-Za-z0-9+/]*$/;
      if (!ok.test(s) || s.length % 4 === 1) return fail('unable to decode value from base64');
      return Buffer.from(s, 'base64').toString('utf8');
    },
  }),
  defineFunction({ name: 'encode_base16', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BYTES, call: ([v]) => Buffer.from(v as string).toString('hex') }),
  defineFunction({
    name: 'decode_base16',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => (/^([0-9a-fA-F]{2})*$/.test(v as string) ? Buffer.from(v as string, 'hex').toString('utf8') : fail('unable to decode value from base16')),
  }),
  defineFunction({
    name: 'encode_percent',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'ascii_set', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v]) => [...Buffer.from(v as string)].map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0'))).join(''),
  }),
  defineFunction({
    name: 'decode_percent',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.K_BYTES,
    call: ([v]) => {
      try {
        return decodeURIComponent(v as string);
      } catch {
        return v as string;
      }
    },
  }),
  defineFunction({
    name: 'encode_csv',
    params: [
      { name: 'value', kind: K.ARRAY, required: true },
      { name: 'delimiter', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, d]) => {
      const delim = optStr(d, ',');
      if (delim.length !== 1) return fail('delimiter must be a single character');
      return (v as Value[]).map((x) => csvField(x, delim)).join(delim);
    },
  }),
];
