/** parse_cbor: CBOR (RFC 8949) data to values. */
import { type ObjectValue, type Value, Float } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** CBOR (RFC 8949) to values: maps with text keys, byte strings as strings, tags ignored. */
function decodeCbor(b: Buffer): Value {
  let i = 0;
  const need = (n: number): void => {
    if (i + n > b.length) fail('unable to parse cbor: unexpected end of input');
  };
  const arg = (info: number): number => {
    if (info < 24) return info;
    const n = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : -1;
    if (n < 0) return fail('unable to parse cbor: unsupported length');
    need(n);
    let v = 0;
    for (let k = 0; k < n; k++) v = v * 256 + b[i + k]!;
    i += n;
    return v;
  };
  const item = (): Value => {
    need(1);
    const ib = b[i++]!;
    const major = ib >> 5;
    const info = ib & 31;
    switch (major) {
      case 0:
        return arg(info);
      case 1:
        return -1 - arg(info);
      case 2:
      case 3: {
        const n = arg(info);
        need(n);
        const s = b.subarray(i, i + n);
        i += n;
        return fromBytes(s);
      }
      case 4: {
        const n = arg(info);
        const out: Value[] = [];
        for (let k = 0; k < n; k++) out.push(item());
        return out;
      }
      case 5: {
        const n = arg(info);
        const out: ObjectValue = {};
        for (let k = 0; k < n; k++) {
          const key = item();
          out[typeof key === 'string' ? key : String(key)] = item();
        }
        return out;
      }
      case 6:
        arg(info);
        return item();
      default: {
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22 || info === 23) return null;
        if (info === 25) {
          need(2);
          const h = b.readUInt16BE(i);
          i += 2;
          const exp = (h >> 10) & 31;
          const frac = h & 1023;
          const v = exp === 0 ? frac * 2 ** -24 : exp === 31 ? (frac ? NaN : Infinity) : (1 + frac / 1024) * 2 ** (exp - 15);
          return new Float(h & 0x8000 ? -v : v);
        }
        if (info === 26) {
          need(4);
          const v = b.readFloatBE(i);
          i += 4;
          return new Float(v);
        }
        if (info === 27) {
          need(8);
          const v = b.readDoubleBE(i);
          i += 8;
          return new Float(v);
        }
        return fail('unable to parse cbor: unsupported simple value');
      }
    }
  };
  const v = item();
  if (i !== b.length) return fail('unable to parse cbor: trailing data');
  return v;
}

/** The functions of this file, for the stdlib list. */
export const cborFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_cbor',
    description: 'Decodes CBOR data.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.ANY.without(K.UNDEFINED),
    call: ([v]) => decodeCbor(toBytes(v as string)),
  }),
];
