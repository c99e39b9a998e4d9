/** Digests and checksums: sha1, sha2, sha3, md5, hmac, crc32 and crc. */
import { createHash, createHmac } from 'node:crypto';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

const HMAC: Record<string, string> = { SHA1: 'sha1', 'SHA-224': 'sha224', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

const hash = (algo: string, v: string): string => createHash(algo).update(toBytes(v)).digest('hex');

/** SHA-2 variants by VRL name, as node:crypto algorithm names. */
export const SHA2: Record<string, string> = { 'SHA-224': 'sha224', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512', 'SHA-512/224': 'sha512-224', 'SHA-512/256': 'sha512-256' };
/** SHA-3 variants by VRL name, as node:crypto algorithm names. */
export const SHA3: Record<string, string> = { 'SHA3-224': 'sha3-224', 'SHA3-256': 'sha3-256', 'SHA3-384': 'sha3-384', 'SHA3-512': 'sha3-512' };

function variantFn(name: string, description: string, table: Record<string, string>, dflt: string): FnDef {
  return defineFunction({
    name,
    description,
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
export const hashFunctions: readonly FnDef[] = [
  defineFunction({ name: 'sha1', description: 'SHA-1 digest as hexadecimal text.', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BYTES, call: ([v]) => hash('sha1', v as string) }),
  defineFunction({ name: 'md5', description: 'MD5 digest as hexadecimal text.', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BYTES, call: ([v]) => hash('md5', v as string) }),
  variantFn('sha2', 'SHA-2 digest (a chosen variant) as hexadecimal text.', SHA2, 'SHA-512/256'),
  variantFn('sha3', 'SHA-3 digest (a chosen variant) as hexadecimal text.', SHA3, 'SHA3-512'),
  defineFunction({
    name: 'hmac',
    description: 'HMAC of a value with a key and hash algorithm.',
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
  defineFunction({ name: 'crc32', description: 'CRC-32 checksum of a string.', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_INTEGER, call: ([v]) => crc32(toBytes(v as string)) }),
  defineFunction({
    name: 'crc',
    description: 'CRC checksum of a string with a chosen algorithm.',
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
];
