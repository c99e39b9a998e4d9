/** Line parsers: common log, tokens, csv, url, query string, duration, bytes. */
import { type ObjectValue, type Value, Float } from '../../lib/value.js';
import { compileFormat } from '../../lib/time/strftime.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail, optStr } from './util.js';

const COMMON =
  /^\s*(-|(?<host>.*?))\s+(-|(?<identity>.*?))\s+(-|(?<user>.*?))\s+(-|\[(-|(?<timestamp>[^[]*))\])\s+(-|"(-|(\s*(?<message>((?<method>\w+)\s+(?<path>(?:\\"|[^"])*?)\s+(?<protocol>(?:\\"|[^"])*?)\s*|(?:\\"|[^"])*?))\s*))")\s+(-|(?<status>\d+))\s+(-|(?<size>\d+))\s*$/;

function parseCommonLog(s: string, fmt: string, tz: string | undefined): ObjectValue {
  const m = COMMON.exec(s);
  if (!m?.groups) return fail('failed parsing common log line');
  const g = m.groups;
  const out: ObjectValue = {};
  for (const k of ['host', 'identity', 'user', 'message', 'method', 'path', 'protocol']) if (g[k] !== undefined) out[k] = g[k]!;
  if (g.status !== undefined) out.status = Number(g.status);
  if (g.size !== undefined) out.size = Number(g.size);
  if (g.timestamp !== undefined) {
    try {
      out.timestamp = compileFormat(fmt).parse(g.timestamp, tz);
    } catch (e) {
      return fail(`failed parsing timestamp ${g.timestamp} using format ${fmt}: ${(e as Error).message}`);
    }
  }
  return out;
}

/** Splits on whitespace keeping "quoted" and [bracketed] runs whole; `-` becomes null. */
function parseTokens(s: string): Value[] {
  const out: Value[] = [];
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (i >= s.length) break;
    const c = s[i];
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      out.push(s.slice(i + 1, j));
      i = j + 1;
    } else if (c === '[') {
      const j = s.indexOf(']', i);
      const end = j < 0 ? s.length : j;
      out.push(s.slice(i + 1, end));
      i = end + 1;
    } else {
      let j = i;
      while (j < s.length && !/\s/.test(s[j]!)) j++;
      const tok = s.slice(i, j);
      out.push(tok === '-' ? null : tok);
      i = j;
    }
  }
  return out;
}

function parseCsvLine(s: string, d: string): string[] {
  const out: string[] = [];
  let i = 0;
  let field = '';
  let quoted = false;
  let started = false;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && !started) {
      quoted = true;
      started = true;
    } else if (c === d) {
      out.push(field);
      field = '';
      started = false;
    } else if (c === '\n' || c === '\r') {
      break;
    } else {
      field += c;
      started = true;
    }
  }
  out.push(field);
  return out;
}

/** Unit sizes in nanoseconds (integers, so sums stay exact). */
const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, cs: 1e7, ds: 1e8, s: 1e9, m: 60e9, h: 3600e9, d: 86400e9, w: 604800e9 };

function parseDuration(s: string, unit: string): Float {
  const u = DURATION_UNITS[unit];
  if (u === undefined) return fail('unknown unit format');
  const re = /(-?\d+(?:\.\d+)?)\s*(ns|us|µs|ms|cs|ds|s|m|h|d|w)/y;
  let total = 0;
  let pos = 0;
  const text = s.trim();
  if (text === '') return fail(`unable to parse duration: '${s}'`);
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return fail(`unable to parse duration: '${s}'`);
    total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    pos = re.lastIndex;
    while (text[pos] === ' ') pos++;
  }
  return new Float(total / u);
}

function parseQuery(q: string): ObjectValue {
  const out: ObjectValue = {};
  if (q.startsWith('?')) q = q.slice(1);
  if (q === '') return out;
  for (const part of q.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const dec = (x: string): string => {
      try {
        return decodeURIComponent(x.replace(/\+/g, ' '));
      } catch {
        return x;
      }
    };
    const k = dec(eq < 0 ? part : part.slice(0, eq));
    const v = eq < 0 ? '' : dec(part.slice(eq + 1));
    const cur = out[k];
    out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
  return out;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

function parseUrl(s: string, knownPorts: boolean): ObjectValue {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return fail(`unable to parse url: relative URL without a base`);
  }
  const scheme = u.protocol.replace(/:$/, '');
  let port: Value = u.port === '' ? null : Number(u.port);
  if (port === null && knownPorts) port = DEFAULT_PORTS[scheme] ?? null;
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return {
    scheme,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    host: host === '' ? null : host,
    port,
    path: u.pathname,
    query: parseQuery(u.search),
    fragment: u.hash === '' ? null : u.hash.slice(1),
  };
}


/** The functions of this file, for the stdlib list. */
export const miscParseFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_common_log',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'timestamp_format', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v, f], env) => parseCommonLog(v as string, optStr(f, '%d/%b/%Y:%T %z'), env.ctx.tz),
  }),
  defineFunction({
    name: 'parse_tokens',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.arrayOf(K.k(K.BYTES | K.NULL)),
    call: ([v]) => parseTokens(v as string),
  }),
  defineFunction({
    name: 'parse_csv',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'delimiter', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.arrayOf(K.K_BYTES),
    call: ([v, d]) => {
      const delim = optStr(d, ',');
      if (delim.length !== 1) return fail('delimiter must be a single character');
      return parseCsvLine(v as string, delim);
    },
  }),
  defineFunction({
    name: 'parse_url',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'default_known_ports', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v, k]) => parseUrl(v as string, k === true),
  }),
  defineFunction({
    name: 'parse_query_string',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.K_OBJECT,
    call: ([v]) => parseQuery(v as string),
  }),
  defineFunction({
    name: 'parse_duration',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'unit', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_FLOAT,
    call: ([v, u]) => parseDuration(v as string, u as string),
  }),
  defineFunction({
    name: 'parse_bytes',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'unit', kind: K.BYTES, required: true },
      { name: 'base', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_FLOAT,
    call: ([v, u, b]) => {
      const base = optStr(b, '2');
      if (base !== '2' && base !== '10') return fail(`unsupported base: ${base}`);
      const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$/.exec(v as string);
      const scale = (name: string): number | undefined => {
        const decimal: Record<string, number> = { B: 1, kB: 1e3, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, PB: 1e15, EB: 1e18 };
        const binary: Record<string, number> = { B: 1, kB: 1024, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4, PB: 1024 ** 5, EB: 1024 ** 6 };
        const iec: Record<string, number> = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4, PiB: 1024 ** 5, EiB: 1024 ** 6 };
        return iec[name] ?? (base === '2' ? binary : decimal)[name];
      };
      const from = m ? scale(m[2]!) : undefined;
      const to = scale(u as string);
      if (!m || from === undefined) return fail(`unable to parse bytes: '${v}'`);
      if (to === undefined) return fail(`unknown unit: ${u}`);
      return new Float((Number(m[1]) * from) / to);
    },
  }),
];
