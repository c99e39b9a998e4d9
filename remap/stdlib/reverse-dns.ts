/** reverse_dns: the host name of an IP address, looked up while the program waits (bounded). */
import { isIP } from 'node:net';
import { reverseLookupSync } from '../../lib/net/reverse-dns.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** The functions of this file, for the stdlib list. */
export const reverseDnsFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'reverse_dns',
    description: 'Host name of an IP address by reverse lookup (hosts file, then DNS); fails when the lookup does.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    impure: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      const ip = v as string;
      if (isIP(ip) === 0) return fail('unable to parse IP address: invalid IP address syntax');
      try {
        return reverseLookupSync(ip);
      } catch (e) {
        return fail(`unable to perform a lookup : ${(e as Error).message}`);
      }
    },
    examples: [{ source: 'reverse_dns!("127.0.0.1")', result: '"localhost"' }],
  }),
];
