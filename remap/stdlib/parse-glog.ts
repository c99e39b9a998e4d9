/** parse_glog and parse_klog: Google logging lines and their Kubernetes variant. */
import { compileFormat } from '../../lib/time/strftime.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

function glogLevel(c: string): string {
  return { I: 'info', W: 'warning', E: 'error', F: 'fatal' }[c] ?? c;
}

/** The functions of this file, for the stdlib list. */
export const glogFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_glog',
    description: 'Parses a glog (Google logging) line.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v]) => {
      const m = /^([IWEF])(\d{8} \d{2}:\d{2}:\d{2}\.\d{6}) +(-?\d+) ([^:]+):(\d+)\] (.*)$/s.exec(v as string);
      if (!m) return fail('unable to parse glog line');
      const ts = compileFormat('%Y%m%d %H:%M:%S%.6f').parse(m[2]!);
      return { level: glogLevel(m[1]!), timestamp: ts, id: Number(m[3]), file: m[4]!, line: Number(m[5]), message: m[6]! };
    },
  }),
  defineFunction({
    name: 'parse_klog',
    description: 'Parses a Kubernetes klog line.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v]) => {
      const m = /^([IWEF])(\d{4} \d{2}:\d{2}:\d{2}\.\d{6}) +(-?\d+) ([^:]+):(\d+)\] (.*)$/s.exec(v as string);
      if (!m) return fail('unable to parse klog line');
      const now = new Date();
      const ts = compileFormat('%Y%m%d %H:%M:%S%.6f').parse(`${now.getUTCFullYear()}${m[2]}`);
      return { level: glogLevel(m[1]!), timestamp: ts, id: Number(m[3]), file: m[4]!, line: Number(m[5]), message: m[6]! };
    },
  }),
];
