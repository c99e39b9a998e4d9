/** Event and environment functions: exists, del, log, uuid_v4/uuid_v7, get_env_var, get_hostname. */
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Value, Timestamp } from '../../lib/value.js';
import { type FnDef, type QueryRef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { displayValue } from '../../lib/value-display.js';
import { fail } from './util.js';

/** Where `log` writes; the remap transform points it at the component logger. */
export const logSink: { write: (level: string, message: string) => void } = {
  write: (level, message) => {
    process.stderr.write(`${level.toUpperCase()} ${message}\n`);
  },
};

const lastLogged = new Map<string, number>();

function uuidV7(ms: number): string {
  const b = randomBytes(16);
  const t = BigInt(ms);
  for (let i = 0; i < 6; i++) b[i] = Number((t >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The functions of this file, for the stdlib list. */
export const miscFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'exists',
    params: [{ name: 'path', kind: K.ALL, required: true, query: true }],
    returns: K.K_BOOLEAN,
    call: ([q], env) => (q as unknown as QueryRef).exists(env.ctx),
  }),
  defineFunction({
    name: 'del',
    params: [
      { name: 'path', kind: K.ALL, required: true, query: true },
      { name: 'compact', kind: K.BOOLEAN },
    ],
    returns: K.ANY,
    call: ([q, c], env) => (q as unknown as QueryRef).remove(env.ctx, c === true),
  }),
  defineFunction({
    name: 'log',
    params: [
      { name: 'value', kind: K.ALL, required: true },
      { name: 'level', kind: K.BYTES },
      { name: 'rate_limit_secs', kind: K.INTEGER },
    ],
    impure: true,
    returns: K.K_NULL,
    call: ([v, l, r], env) => {
      const level = typeof l === 'string' ? l : 'info';
      const msg = typeof v === 'string' ? v : displayValue(v!);
      // spec 02 §8: log is rate limited by default (one message per 1 s per text)
      const secs = typeof r === 'number' ? r : 1;
      const now = Date.now();
      const key = level + '\u0000' + msg;
      const prev = lastLogged.get(key);
      if (secs > 0 && prev !== undefined && now - prev < secs * 1000) return null;
      if (lastLogged.size > 10_000) lastLogged.clear();
      lastLogged.set(key, now);
      (env.ctx.log ?? logSink.write)(level, msg);
      return null;
    },
  }),
  defineFunction({ name: 'uuid_v4', params: [], impure: true, returns: K.K_BYTES, call: () => randomUUID() }),
  defineFunction({
    name: 'uuid_v7',
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
    name: 'get_env_var',
    params: [{ name: 'name', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([n]) => process.env[n as string] ?? fail(`environment variable not found`),
  }),
  defineFunction({ name: 'get_hostname', params: [], fallible: true, returns: K.K_BYTES, call: () => hostname() as Value }),
];
