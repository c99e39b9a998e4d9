/** UUIDs: uuid_v4, uuid_v7 and uuid_from_friendly_id. */
import { randomBytes, randomUUID } from 'node:crypto';
import { Timestamp } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

function uuidV7(ms: number): string {
  const b = randomBytes(16);
  const t = BigInt(ms);
  for (let i = 0; i < 6; i++) b[i] = Number((t >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The functions of this file, for the stdlib list. */
export const uuidFunctions: readonly FnDef[] = [
  defineFunction({ name: 'uuid_v4', description: 'A random (version 4) UUID.', params: [], impure: true, returns: K.K_BYTES, call: () => randomUUID() }),
  defineFunction({
    name: 'uuid_v7',
    description: 'A time-ordered (version 7) UUID, optionally for a timestamp.',
    params: [{ name: 'timestamp', kind: K.TIMESTAMP }],
    impure: true,
    returns: K.K_BYTES,
    call: ([t]) => {
      if (!(t instanceof Timestamp)) return uuidV7(Date.now());
      // VRL hands the epoch nanoseconds, truncated to 32 bits, as the sub-second part
      const sub = Number(t.toNanos() & 0xffffffffn);
      return uuidV7(Math.floor(t.ms / 1000) * 1000 + Math.floor(sub / 1e6));
    },
  }),
  defineFunction({
    name: 'uuid_from_friendly_id',
    description: 'UUID from a base62 friendly id.',
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
];
