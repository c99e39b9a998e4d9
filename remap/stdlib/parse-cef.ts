/** parse_cef: Common Event Format (CEF) lines. */
import type { ObjectValue } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** The functions of this file, for the stdlib list. */
export const cefFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_cef',
    description: 'Parses a Common Event Format (CEF) line.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'translate_custom_fields', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.objectOf(K.K_BYTES),
    call: ([v, translate]) => {
      const s = v as string;
      const start = s.indexOf('CEF:');
      if (start < 0) return fail('Could not parse whole line successfully');
      const header: string[] = [];
      let i = start + 4;
      let cur = '';
      while (i < s.length && header.length < 7) {
        const c = s[i]!;
        if (c === '\\' && (s[i + 1] === '|' || s[i + 1] === '\\')) {
          cur += s[i + 1];
          i += 2;
        } else if (c === '|') {
          header.push(cur);
          cur = '';
          i++;
        } else {
          cur += c;
          i++;
        }
      }
      if (header.length < 7) return fail('Could not parse whole line successfully');
      const names = ['cefVersion', 'deviceVendor', 'deviceProduct', 'deviceVersion', 'deviceEventClassId', 'name', 'severity'];
      const out: ObjectValue = {};
      names.forEach((n, k) => (out[n] = header[k]!));
      const ext = s.slice(i);
      const keys = [...ext.matchAll(/(?:^|\s)([A-Za-z0-9_.[\]-]+)=/g)];
      const unescape = (x: string): string => x.replace(/\\n/g, '\n').replace(/\\r/g, '\r').replace(/\\([=\\|])/g, '$1');
      for (let k = 0; k < keys.length; k++) {
        const m = keys[k]!;
        const valStart = m.index! + m[0].length;
        const valEnd = k + 1 < keys.length ? keys[k + 1]!.index! : ext.length;
        out[m[1]!] = unescape(ext.slice(valStart, valEnd).trim());
      }
      if (translate === true) {
        for (const key of Object.keys(out)) {
          const label = out[`${key}Label`];
          if (typeof label === 'string' && !key.endsWith('Label')) {
            out[label] = out[key]!;
            delete out[key];
            delete out[`${key}Label`];
          }
        }
      }
      return out;
    },
  }),
];
