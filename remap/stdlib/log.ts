/** log: writes a message at a level, rate limited per message text. */
import { displayValue } from '../../lib/value-display.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';

/** Where `log` writes; the remap transform points it at the component logger. */
export const logSink: { write: (level: string, message: string) => void } = {
  write: (level, message) => {
    process.stderr.write(`${level.toUpperCase()} ${message}\n`);
  },
};

const lastLogged = new Map<string, number>();

/** The functions of this file, for the stdlib list. */
export const logFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'log',
    description: 'Writes a message to the log at a level.',
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
      // log is rate limited by default, as in VRL (one message per 1 s per text)
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
];
