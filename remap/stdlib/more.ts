/** More functions: casing, find, match_array, tally, random_*, haversine, parse_float, parse_logfmt, CEF, glog, AWS CloudWatch, community_id. */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { type ObjectValue, type Value, Float, Timestamp, isObject, valueEquals } from '../../lib/value.js';
import { compileFormat, systemTimezone } from '../../lib/time/strftime.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { globalOf } from '../regex.js';
import { parseKeyValue } from './parse-key-value.js';
import { parseFloatStrict } from './types.js';
import { fail, fromBytes, num, parseJsonText } from './util.js';
import { ipBytes } from './ip.js';

/** Splits text into words at separators and case changes (`fooBar-baz` → foo, Bar, baz). */
function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}
const cap = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();

function casing(name: string, f: (ws: string[]) => string): FnDef {
  return defineFunction({
    name,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'original_case', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v]) => f(words(v as string)),
  });
}

function glogLevel(c: string): string {
  return { I: 'info', W: 'warning', E: 'error', F: 'fatal' }[c] ?? c;
}

/** community_id v1 (Corelight spec): seed 0, base64 SHA-1 over the ordered flow tuple. */
function communityId(src: string, dst: string, proto: number, sport: number | undefined, dport: number | undefined, seed: number): string {
  let a = ipBytes(src);
  let b = ipBytes(dst);
  let pa = sport ?? 0;
  let pb = dport ?? 0;
  const cmpIp = (x: number[], y: number[]): number => {
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return 0;
  };
  const c = cmpIp(a, b);
  if (c > 0 || (c === 0 && pa > pb)) {
    [a, b] = [b, a];
    [pa, pb] = [pb, pa];
  }
  const parts: number[] = [seed >> 8, seed & 0xff, ...a, ...b, proto, 0];
  if (sport !== undefined && dport !== undefined) parts.push(pa >> 8, pa & 0xff, pb >> 8, pb & 0xff);
  return '1:' + createHash('sha1').update(Buffer.from(parts)).digest('base64');
}

/** Uniform integer in [min, max); crypto's randomInt only spans safe ranges under 2^48. */
function randomIntIn(min: number, max: number): number {
  if (Number.isSafeInteger(min) && Number.isSafeInteger(max) && max - min < 2 ** 48) return randomInt(min, max);
  const r = Math.floor(min + Math.random() * (max - min));
  return r >= max ? min : r;
}

/** The functions of this file, for the stdlib list. */
export const moreFunctions: readonly FnDef[] = [
  casing('camelcase', (ws) => ws.map((w, i) => (i === 0 ? w.toLowerCase() : cap(w))).join('')),
  casing('pascalcase', (ws) => ws.map(cap).join('')),
  casing('snakecase', (ws) => ws.map((w) => w.toLowerCase()).join('_')),
  casing('kebabcase', (ws) => ws.map((w) => w.toLowerCase()).join('-')),
  casing('screamingsnakecase', (ws) => ws.map((w) => w.toUpperCase()).join('_')),
  defineFunction({
    name: 'find',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'pattern', kind: K.BYTES | K.REGEX, required: true },
      { name: 'from', kind: K.INTEGER },
    ],
    returns: K.k(K.INTEGER | K.NULL),
    call: ([v, p, f]) => {
      const s = v as string;
      const from = typeof f === 'number' ? f : 0;
      if (typeof p === 'string') {
        const i = s.indexOf(p, from);
        return i < 0 ? null : i;
      }
      const re = globalOf(p as RegExp);
      re.lastIndex = from;
      const m = re.exec(s);
      return m ? m.index : null;
    },
  }),
  defineFunction({
    name: 'match_array',
    params: [
      { name: 'value', kind: K.ARRAY, required: true },
      { name: 'pattern', kind: K.REGEX, required: true },
      { name: 'all', kind: K.BOOLEAN },
    ],
    returns: K.K_BOOLEAN,
    call: ([v, p, all]) => {
      const re = new RegExp(p as RegExp, (p as RegExp).flags.replace('g', ''));
      const test = (x: Value): boolean => typeof x === 'string' && re.test(x);
      return all === true ? (v as Value[]).every(test) : (v as Value[]).some(test);
    },
  }),
  defineFunction({
    name: 'tally',
    fresh: true,
    params: [{ name: 'value', kind: K.ARRAY, required: true }],
    fallible: true,
    returns: K.objectOf(K.K_INTEGER),
    call: ([v]) => {
      const out: ObjectValue = {};
      for (const x of v as Value[]) {
        if (typeof x !== 'string') return fail(`all values must be strings, found: ${K.valueKindName(x)}`);
        out[x] = ((out[x] as number | undefined) ?? 0) + 1;
      }
      return out;
    },
  }),
  defineFunction({
    name: 'tally_value',
    params: [
      { name: 'array', kind: K.ARRAY, required: true },
      { name: 'value', kind: K.ALL, required: true },
    ],
    returns: K.K_INTEGER,
    call: ([a, v]) => (a as Value[]).filter((x) => valueEquals(x, v!)).length,
  }),
  defineFunction({
    name: 'random_int',
    params: [
      { name: 'min', kind: K.INTEGER, required: true },
      { name: 'max', kind: K.INTEGER, required: true },
    ],
    impure: true,
    fallible: (args) => !(args[0]!.isConstant && args[1]!.isConstant && num(args[0]!.constant) < num(args[1]!.constant)),
    returns: K.K_INTEGER,
    call: ([a, b]) => ((a as number) < (b as number) ? randomIntIn(a as number, b as number) : fail('max must be greater than min')),
  }),
  defineFunction({
    name: 'random_float',
    params: [
      { name: 'min', kind: K.FLOAT, required: true },
      { name: 'max', kind: K.FLOAT, required: true },
    ],
    impure: true,
    fallible: (args) => !(args[0]!.isConstant && args[1]!.isConstant && num(args[0]!.constant) < num(args[1]!.constant)),
    returns: K.K_FLOAT,
    call: ([a, b]) => {
      const lo = num(a);
      const hi = num(b);
      return lo < hi ? new Float(lo + Math.random() * (hi - lo)) : fail('max must be greater than min');
    },
  }),
  defineFunction({ name: 'random_bool', params: [], impure: true, returns: K.K_BOOLEAN, call: () => Math.random() < 0.5 }),
  defineFunction({
    name: 'random_bytes',
    params: [{ name: 'length', kind: K.INTEGER, required: true }],
    impure: true,
    fallible: (args) => !(args[0]!.isConstant && num(args[0]!.constant) >= 0 && num(args[0]!.constant) <= 65536),
    returns: K.K_BYTES,
    call: ([n]) => ((n as number) >= 0 && (n as number) <= 65536 ? fromBytes(randomBytes(n as number)) : fail('Length is too large. Maximum is 64k')),
  }),
  defineFunction({
    name: 'get_timezone_name',
    params: [],
    fallible: true,
    returns: K.K_BYTES,
    call: (_a, env) => {
      const tz = env.ctx.tz;
      if (tz === undefined || tz.toUpperCase() === 'UTC') return 'UTC';
      return tz === 'local' ? systemTimezone() : tz;
    },
  }),
  defineFunction({
    name: 'haversine',
    params: [
      { name: 'latitude1', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'longitude1', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'latitude2', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'longitude2', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'measurement_unit', kind: K.BYTES },
    ],
    returns: K.objectKind(new Map([['distance', K.K_FLOAT], ['bearing', K.K_FLOAT]])),
    call: ([la1, lo1, la2, lo2, unit]) => {
      const r = (d: number): number => (d * Math.PI) / 180;
      const [p1, p2] = [r(num(la1)), r(num(la2))];
      const dl = r(num(lo2) - num(lo1));
      const a = Math.sin((p2 - p1) / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) ** 2;
      const km = 6371.0088 * 2 * Math.asin(Math.sqrt(a));
      const y = Math.sin(dl) * Math.cos(p2);
      const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
      const bearing = (((Math.atan2(y, x) * 180) / Math.PI + 360) % 360);
      const round = (n: number): number => Math.round(n * 1e7) / 1e7;
      return { distance: new Float(round(unit === 'miles' ? km * 0.621371 : km)), bearing: new Float(round(bearing)) };
    },
  }),
  defineFunction({
    name: 'parse_float',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_FLOAT,
    call: ([v]) => new Float(parseFloatStrict(v as string)),
  }),
  defineFunction({
    name: 'parse_logfmt',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.objectOf(K.k(K.BOOLEAN | K.BYTES | K.ARRAY)),
    call: ([v]) => parseKeyValue(v as string, '=', ' ', true, true),
  }),
  defineFunction({
    name: 'parse_glog',
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
  defineFunction({
    name: 'parse_cef',
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
  defineFunction({
    name: 'parse_aws_cloudwatch_log_subscription_message',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.objectKind(
      new Map<string, K.Kind>([
        ['owner', K.K_BYTES],
        ['message_type', K.K_BYTES],
        ['log_group', K.K_BYTES],
        ['log_stream', K.K_BYTES],
        ['subscription_filters', K.arrayOf(K.K_BYTES)],
        ['log_events', K.arrayOf(K.objectKind(new Map([['id', K.K_BYTES], ['timestamp', K.K_TIMESTAMP], ['message', K.K_BYTES]])))],
      ]),
    ),
    call: ([v]) => {
      const j = parseJsonText(v as string);
      if (!isObject(j)) return fail('unable to parse');
      const events = Array.isArray(j.logEvents) ? j.logEvents : [];
      return {
        owner: j.owner ?? null,
        message_type: j.messageType ?? null,
        log_group: j.logGroup ?? null,
        log_stream: j.logStream ?? null,
        subscription_filters: j.subscriptionFilters ?? [],
        log_events: events.map((e) => {
          const o = isObject(e) ? e : {};
          const ms = typeof o.timestamp === 'number' ? o.timestamp : 0;
          return { id: o.id ?? null, timestamp: new Timestamp(ms, 0), message: o.message ?? null };
        }),
      };
    },
  }),
  defineFunction({
    name: 'community_id',
    params: [
      { name: 'source_ip', kind: K.BYTES, required: true },
      { name: 'destination_ip', kind: K.BYTES, required: true },
      { name: 'protocol', kind: K.INTEGER, required: true },
      { name: 'source_port', kind: K.INTEGER },
      { name: 'destination_port', kind: K.INTEGER },
      { name: 'seed', kind: K.INTEGER },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([s, d, p, sp, dp, seed]) =>
      communityId(s as string, d as string, p as number, typeof sp === 'number' ? sp : undefined, typeof dp === 'number' ? dp : undefined, typeof seed === 'number' ? seed : 0),
  }),
];
