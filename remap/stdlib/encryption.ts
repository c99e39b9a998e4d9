/** encrypt / decrypt: AES modes and ChaCha20-Poly1305 over byte strings. */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Value } from '../../lib/value.js';
import { type FnDef, FunctionCompileError, type Param, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { VrlError } from '../runtime.js';
import { req } from './args.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

type Padding = 'PKCS7' | 'ANSIX923' | 'ISO7816' | 'ISO10126';
interface Algo {
  readonly cipher: string;
  readonly keyLen: number;
  readonly ivLen: number;
  readonly padding?: Padding;
  readonly aead?: boolean;
}

function algorithms(): Record<string, Algo> {
  const out: Record<string, Algo> = {};
  for (const bits of [128, 192, 256]) {
    const kl = bits / 8;
    out[`AES-${bits}-CFB`] = { cipher: `aes-${bits}-cfb`, keyLen: kl, ivLen: 16 };
    out[`AES-${bits}-OFB`] = { cipher: `aes-${bits}-ofb`, keyLen: kl, ivLen: 16 };
    out[`AES-${bits}-CTR-BE`] = { cipher: `aes-${bits}-ctr`, keyLen: kl, ivLen: 16 };
    for (const p of ['PKCS7', 'ANSIX923', 'ISO7816', 'ISO10126'] as const) out[`AES-${bits}-CBC-${p}`] = { cipher: `aes-${bits}-cbc`, keyLen: kl, ivLen: 16, padding: p };
  }
  out['CHACHA20-POLY1305'] = { cipher: 'chacha20-poly1305', keyLen: 32, ivLen: 12, aead: true };
  return out;
}
const ALGORITHMS = algorithms();

function pad(data: Buffer, p: Padding): Buffer {
  const n = 16 - (data.length % 16);
  const tail = Buffer.alloc(n);
  if (p === 'PKCS7') tail.fill(n);
  else if (p === 'ANSIX923') tail[n - 1] = n;
  else if (p === 'ISO10126') {
    randomBytes(n - 1).copy(tail);
    tail[n - 1] = n;
  } else tail[0] = 0x80;
  return Buffer.concat([data, tail]);
}

function unpad(data: Buffer, p: Padding): Buffer {
  if (data.length === 0) return fail('unable to unpad: empty input');
  if (p === 'ISO7816') {
    let i = data.length - 1;
    while (i >= 0 && data[i] === 0) i--;
    if (i < 0 || data[i] !== 0x80) return fail('unable to unpad: invalid padding');
    return data.subarray(0, i);
  }
  const n = data[data.length - 1]!;
  if (n < 1 || n > 16 || n > data.length) return fail('unable to unpad: invalid padding');
  if (p === 'PKCS7' && !data.subarray(data.length - n).every((b) => b === n)) return fail('unable to unpad: invalid padding');
  if (p === 'ANSIX923' && !data.subarray(data.length - n, data.length - 1).every((b) => b === 0)) return fail('unable to unpad: invalid padding');
  return data.subarray(0, data.length - n);
}

function checkAlgorithm(args: readonly { present: boolean; isConstant: boolean; constant?: Value }[]): undefined {
  const a = args[1]!;
  if (a.isConstant && ALGORITHMS[String(a.constant)] === undefined) throw new FunctionCompileError('Invalid algorithm', 'algorithm', JSON.stringify(a.constant));
  return undefined;
}

function setup(algorithm: string, key: string, iv: string): [Algo, Buffer, Buffer] {
  const a = ALGORITHMS[algorithm];
  if (!a) return fail(`Invalid algorithm: ${algorithm}`);
  const k = toBytes(key);
  const v = toBytes(iv);
  if (k.length !== a.keyLen) return fail(`Invalid key length (expected ${a.keyLen} bytes, got ${k.length})`);
  if (v.length !== a.ivLen) return fail(`Invalid iv length (expected ${a.ivLen} bytes, got ${v.length})`);
  return [a, k, v];
}

/** encrypt and decrypt take the same arguments but the first. */
const cipherParams = (data: string): Param[] => [req(data, K.BYTES), req('algorithm', K.BYTES), req('key', K.BYTES), req('iv', K.BYTES)];

/** The functions of this file, for the stdlib list. */
export const encryptionFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'encrypt',
    description: 'Encrypts data with a cipher, key and initialization vector.',
    params: cipherParams('plaintext'),
    fallible: true,
    prepare: checkAlgorithm,
    returns: K.K_BYTES,
    call: ([p, alg, key, iv]) => {
      const [a, k, v] = setup(alg as string, key as string, iv as string);
      const data = a.padding ? pad(toBytes(p as string), a.padding) : toBytes(p as string);
      if (a.aead) {
        const c = createCipheriv(a.cipher as 'chacha20-poly1305', k, v, { authTagLength: 16 });
        return fromBytes(Buffer.concat([c.update(data), c.final(), c.getAuthTag()]));
      }
      const c = createCipheriv(a.cipher, k, v);
      c.setAutoPadding(false);
      return fromBytes(Buffer.concat([c.update(data), c.final()]));
    },
  }),
  defineFunction({
    name: 'decrypt',
    description: 'Decrypts data with a cipher, key and initialization vector.',
    params: cipherParams('ciphertext'),
    fallible: true,
    prepare: checkAlgorithm,
    returns: K.K_BYTES,
    call: ([ct, alg, key, iv]) => {
      const [a, k, v] = setup(alg as string, key as string, iv as string);
      const data = toBytes(ct as string);
      try {
        if (a.aead) {
          if (data.length < 16) return fail('unable to decrypt: ciphertext too short');
          const d = createDecipheriv(a.cipher as 'chacha20-poly1305', k, v, { authTagLength: 16 });
          d.setAuthTag(data.subarray(data.length - 16));
          return fromBytes(Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]));
        }
        const d = createDecipheriv(a.cipher, k, v);
        d.setAutoPadding(false);
        const plain = Buffer.concat([d.update(data), d.final()]);
        return fromBytes(a.padding ? unpad(plain, a.padding) : plain);
      } catch (e) {
        if (e instanceof VrlError) throw e;
        return fail(`unable to decrypt: ${(e as Error).message}`);
      }
    },
  }),
];
