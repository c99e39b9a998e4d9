/** The program's environment: get_env_var, get_hostname, get_timezone_name. */
import { hostname } from 'node:os';
import type { Value } from '../../lib/value.js';
import { systemTimezone } from '../../lib/time/strftime.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** The functions of this file, for the stdlib list. */
export const systemFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'get_env_var',
    description: 'Value of an environment variable.',
    params: [{ name: 'name', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([n]) => process.env[n as string] ?? fail(`environment variable not found`),
  }),
  defineFunction({ name: 'get_hostname', description: 'Host name of the machine.', params: [], fallible: true, returns: K.K_BYTES, call: () => hostname() as Value }),
  defineFunction({
    name: 'get_timezone_name',
    description: 'Name of the configured time zone.',
    params: [],
    fallible: true,
    returns: K.K_BYTES,
    call: (_a, env) => {
      const tz = env.ctx.tz;
      if (tz === undefined || tz.toUpperCase() === 'UTC') return 'UTC';
      return tz === 'local' ? systemTimezone() : tz;
    },
  }),
];
