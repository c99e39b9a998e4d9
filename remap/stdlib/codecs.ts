/** Hashing and encodings: sha1/sha2/sha3/md5, hmac, crc32, base64, base16, percent, csv. */
import { createHash, createHmac } from 'node:crypto';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import type { Value } from '../../lib/value.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail, fromBytes, optStr, scalarToString, toBytes } from './util.js';

/** Characters encoded on top of controls and non-ASCII, per named set (`*` = all but alphanumerics). */
const PERCENT_SETS: Record<string, string> = (() => {
  const fragment = ' "<>`';
  const query = ' "#<>';
  const special = query + "'";
  const path = query + '?`{}';
  const userinfo = path + '/:;=@[\\]^|';
  const component = userinfo + '$%&+,';
  return { NON_ALPHANUMERIC: '*', CONTROLS: '', FRAGMENT: fragment, QUERY: query, SPECIAL: special, PATH: path, USERINFO: userinfo, COMPONENT: component, WWW_FORM_URLENCODED: component + "!'()~" };
})();

const HMAC: Record<string, string> = { SHA1: 'sha1', 'SHA-224': 'sha224', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

const hash = (algo: string, v: string): string => createHash(algo).update(toBytes(v)).digest('hex');

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

/** The functions of this file, for the stdlib list. */
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
    prepare: (args) => {
      const a = args[2]!;
      if (a.present && a.isConstant && HMAC[String(a.constant)] === undefined) throw new FunctionCompileError('Invalid algorithm', 'algorithm', JSON.stringify(a.constant));
      return undefined;
    },
    fallible: (args) => args[2]!.present && !args[2]!.isConstant,
    returns: K.K_BYTES,
    call: ([v, key, a]) => {
      const algo = HMAC[optStr(a, 'SHA-256')];
      if (!algo) return fail('invalid algorithm');
      return fromBytes(createHmac(algo, toBytes(key as string)).update(toBytes(v as string)).digest());
    },
  }),
  defineFunction({ name: 'crc32', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_INTEGER, call: ([v]) => crc32(toBytes(v as string)) }),
  defineFunction({
    name: 'encode_base64',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'padding', kind: K.BOOLEAN },
      { name: 'charset', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v, p, c]) => {
      let out = toBytes(v as string).toString(optStr(c, 'standard') === 'url_safe' ? 'base64url' : 'base64');
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
      return fromBytes(Buffer.from(s, 'base64'));
    },
  }),
  defineFunction({ name: 'encode_base16', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BYTES, call: ([v]) => toBytes(v as string).toString('hex') }),
  defineFunction({
    name: 'decode_base16',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => (/^([0-9a-fA-F]{2})*$/.test(v as string) ? fromBytes(Buffer.from(v as string, 'hex')) : fail('unable to decode value from base16')),
  }),
  defineFunction({
    name: 'encode_percent',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'ascii_set', kind: K.BYTES },
    ],
    fallible: (args) => args[1]!.present && !args[1]!.isConstant,
    prepare: (args) => {
      const a = args[1]!;
      if (a.present && a.isConstant && PERCENT_SETS[String(a.constant)] === undefined) throw new FunctionCompileError('unknown ascii_set', 'ascii_set');
      return undefined;
    },
    returns: K.K_BYTES,
    call: ([v, set]) => {
      const extra = PERCENT_SETS[optStr(set, 'NON_ALPHANUMERIC')];
      if (extra === undefined) return fail('unknown ascii_set');
      let out = '';
      for (const b of toBytes(v as string)) {
        const c = String.fromCharCode(b);
        const encode = b < 0x20 || b >= 0x7f || (extra === '*' ? !/[A-Za-z0-9]/.test(c) : extra.includes(c));
        out += encode ? '%' + b.toString(16).toUpperCase().padStart(2, '0') : c;
      }
      return out;
    },
  }),
  defineFunction({
    name: 'decode_percent',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.K_BYTES,
    call: ([v]) => {
      const s = v as string;
      const out: number[] = [];
      const src = toBytes(s);
      for (let i = 0; i < src.length; i++) {
        const b = src[i]!;
        const hex = String.fromCharCode(src[i + 1] ?? 0, src[i + 2] ?? 0);
        if (b === 0x25 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
          out.push(parseInt(hex, 16));
          i += 2;
        } else out.push(b);
      }
      return fromBytes(Buffer.from(out));
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

// RFC 3492 punycode (bootstring) parameters
const BASE = 36;
const TMIN = 1;
const TMAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

function adapt(delta: number, numPoints: number, first: boolean): number {
  delta = first ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / numPoints);
  let k = 0;
  while (delta > ((BASE - TMIN) * TMAX) >> 1) {
    delta = Math.floor(delta / (BASE - TMIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + SKEW));
}

const digitChar = (d: number): string => String.fromCharCode(d < 26 ? 97 + d : 22 + d);

/** Encodes one label's code points (no `xn--` prefix). */
export function punyEncode(input: string): string {
  const cps = Array.from(input, (c) => c.codePointAt(0)!);
  let out = cps.filter((c) => c < 128).map((c) => String.fromCharCode(c)).join('');
  const b = out.length;
  let h = b;
  if (b > 0) out += '-';
  let n = INITIAL_N;
  let delta = 0;
  let bias = INITIAL_BIAS;
  while (h < cps.length) {
    const m = Math.min(...cps.filter((c) => c >= n));
    delta += (m - n) * (h + 1);
    n = m;
    for (const c of cps) {
      if (c < n) delta++;
      if (c === n) {
        let q = delta;
        for (let k = BASE; ; k += BASE) {
          const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
          if (q < t) break;
          out += digitChar(t + ((q - t) % (BASE - t)));
          q = Math.floor((q - t) / (BASE - t));
        }
        out += digitChar(q);
        bias = adapt(delta, h + 1, h === b);
        delta = 0;
        h++;
      }
    }
    delta++;
    n++;
  }
  return out;
}

/** Decodes one label (no `xn--` prefix); throws on invalid input. */
export function punyDecode(input: string): string {
  const out: number[] = [];
  const basic = input.lastIndexOf('-');
  for (let j = 0; j < Math.max(basic, 0); j++) out.push(input.charCodeAt(j));
  let n = INITIAL_N;
  let i = 0;
  let bias = INITIAL_BIAS;
  for (let idx = basic > 0 ? basic + 1 : 0; idx < input.length; ) {
    const oldi = i;
    let w = 1;
    for (let k = BASE; ; k += BASE) {
      if (idx >= input.length) throw new Error('invalid punycode');
      const c = input.charCodeAt(idx++);
      const digit = c - 48 < 10 ? c - 22 : c - 65 < 26 ? c - 65 : c - 97 < 26 ? c - 97 : BASE;
      if (digit >= BASE) throw new Error('invalid punycode');
      i += digit * w;
      const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if (digit < t) break;
      w *= BASE - t;
    }
    bias = adapt(i - oldi, out.length + 1, oldi === 0);
    n += Math.floor(i / (out.length + 1));
    i %= out.length + 1;
    out.splice(i++, 0, n);
  }
  return String.fromCodePoint(...out);
}

/** The functions of this file, for the stdlib list. */
export const punycodeFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'encode_punycode',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'validate', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) =>
      (v as string)
        .split('.')
        .map((l) => (/^[\x00-\x7f]*$/.test(l) ? l.toLowerCase() : 'xn--' + punyEncode(l.toLowerCase())))
        .join('.'),
  }),
  defineFunction({
    name: 'decode_punycode',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'validate', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) =>
      (v as string)
        .split('.')
        .map((l) => {
          if (!/^xn--/i.test(l)) return l.toLowerCase();
          try {
            return punyDecode(l.slice(4).toLowerCase());
          } catch {
            return fail('unable to decode punycode');
          }
        })
        .join('.'),
  }),
  defineFunction({
    name: 'sieve',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'permitted_characters', kind: K.REGEX, required: true },
      { name: 'replace_single', kind: K.BYTES },
      { name: 'replace_repeated', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v, p, rs, rr]) => {
      const re = new RegExp(p as RegExp, (p as RegExp).flags.replace('g', ''));
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
];

interface Crc32Params {
  readonly poly: number;
  readonly init: number;
  readonly reflect: boolean;
  readonly xorout: number;
}

/** 32-bit CRC variants by their catalogue names. */
const CRC32: Record<string, Crc32Params> = {
  CRC_32_ISO_HDLC: { poly: 0x04c11db7, init: 0xffffffff, reflect: true, xorout: 0xffffffff },
  CRC_32_CKSUM: { poly: 0x04c11db7, init: 0, reflect: false, xorout: 0xffffffff },
  CRC_32_BZIP2: { poly: 0x04c11db7, init: 0xffffffff, reflect: false, xorout: 0xffffffff },
  CRC_32_MPEG_2: { poly: 0x04c11db7, init: 0xffffffff, reflect: false, xorout: 0 },
  CRC_32_JAMCRC: { poly: 0x04c11db7, init: 0xffffffff, reflect: true, xorout: 0 },
  CRC_32_ISCSI: { poly: 0x1edc6f41, init: 0xffffffff, reflect: true, xorout: 0xffffffff },
  CRC_32_AUTOSAR: { poly: 0xf4acfb13, init: 0xffffffff, reflect: true, xorout: 0xffffffff },
  CRC_32_BASE91_D: { poly: 0xa833982b, init: 0xffffffff, reflect: true, xorout: 0xffffffff },
  CRC_32_XFER: { poly: 0x000000af, init: 0, reflect: false, xorout: 0 },
  CRC_32_AIXM: { poly: 0x814141ab, init: 0, reflect: false, xorout: 0 },
};

function reflect32(x: number): number {
  let r = 0;
  for (let i = 0; i < 32; i++) if (x & (1 << i)) r |= 1 << (31 - i);
  return r >>> 0;
}

function crcGeneric(p: Crc32Params, data: Uint8Array): number {
  let crc = p.init >>> 0;
  if (p.reflect) {
    const poly = reflect32(p.poly);
    crc = reflect32(crc);
    for (const b of data) {
      crc ^= b;
      for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ poly : crc >>> 1;
    }
    crc = reflect32(crc);
    crc = reflect32(crc);
  } else {
    for (const b of data) {
      crc ^= b << 24;
      for (let k = 0; k < 8; k++) crc = crc & 0x80000000 ? ((crc << 1) ^ p.poly) >>> 0 : (crc << 1) >>> 0;
    }
  }
  return (crc ^ p.xorout) >>> 0;
}

/** The functions of this file, for the stdlib list. */
export const binaryFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'crc',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'algorithm', kind: K.BYTES },
    ],
    prepare: (args) => {
      const a = args[1]!;
      if (a.present && a.isConstant && CRC32[String(a.constant)] === undefined) throw new FunctionCompileError('Invalid CRC algorithm', 'algorithm', JSON.stringify(a.constant));
      return undefined;
    },
    fallible: (args) => args[1]!.present && !args[1]!.isConstant,
    returns: K.K_BYTES,
    call: ([v, a]) => {
      const p = CRC32[optStr(a, 'CRC_32_ISO_HDLC')];
      if (!p) return fail('Invalid CRC algorithm');
      return String(crcGeneric(p, toBytes(v as string)));
    },
  }),
  defineFunction({
    name: 'encode_gzip',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'compression_level', kind: K.INTEGER },
    ],
    returns: K.K_BYTES,
    call: ([v, l]) => {
      const out = gzipSync(toBytes(v as string), { level: typeof l === 'number' ? Math.min(9, Math.max(0, l)) : 6 });
      out[9] = 0xff; // OS field "unknown", as the reference encoder writes it
      return fromBytes(out);
    },
  }),
  defineFunction({
    name: 'decode_gzip',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      try {
        return fromBytes(gunzipSync(toBytes(v as string)));
      } catch (e) {
        return fail(`unable to decode value with gzip decoder: ${(e as Error).message}`);
      }
    },
  }),
  defineFunction({
    name: 'encode_zlib',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'compression_level', kind: K.INTEGER },
    ],
    returns: K.K_BYTES,
    call: ([v, l]) => fromBytes(deflateSync(toBytes(v as string), { level: typeof l === 'number' ? Math.min(9, Math.max(0, l)) : 6 })),
  }),
  defineFunction({
    name: 'decode_zlib',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      try {
        return fromBytes(inflateSync(toBytes(v as string)));
      } catch (e) {
        return fail(`unable to decode value with zlib decoder: ${(e as Error).message}`);
      }
    },
  }),
];
