/** parse_syslog (RFC 5424 and RFC 3164, loosely) and its alias parse_linux_authorization; to_syslog_level / severity / facility helpers. */
import { type ObjectValue, type Value, Timestamp } from '../../lib/value.js';
import { compileFormat } from '../../lib/time/strftime.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** Syslog facility names by code (RFC 5424 table). */
export const FACILITIES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp', 'ntp', 'audit', 'alert', 'clockd',
  'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7',
];
/** Syslog severity names by level 0..7. */
export const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const procid = (s: string): Value => (/^\d+$/.test(s) ? Number(s) : s);

function parseSd(s: string, i: number, out: ObjectValue): number {
  // one or more `[id k="v" ...]` elements; returns the index after them
  while (s[i] === '[') {
    let j = i + 1;
    while (j < s.length && s[j] !== ' ' && s[j] !== ']') j++;
    const id = s.slice(i + 1, j);
    const params: ObjectValue = {};
    for (;;) {
      while (s[j] === ' ') j++;
      if (s[j] === ']') {
        j++;
        break;
      }
      if (j >= s.length) return -1;
      const eq = s.indexOf('=', j);
      if (eq < 0) return -1;
      const name = s.slice(j, eq).trim();
      j = eq + 1;
      while (s[j] === ' ') j++;
      if (s[j] !== '"') return -1;
      j++;
      let val = '';
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && (s[j + 1] === '"' || s[j + 1] === '\\' || s[j + 1] === ']')) {
          val += s[j + 1];
          j += 2;
        } else val += s[j++];
      }
      if (j >= s.length) return -1;
      j++;
      params[name] = val;
    }
    out[id] = params;
    i = j;
  }
  return i;
}

function pri(out: ObjectValue, p: string | undefined): void {
  if (p === undefined) return;
  const n = Number(p);
  const sev = SEVERITIES[n % 8];
  const fac = FACILITIES[n >> 3];
  if (sev) out.severity = sev;
  if (fac) out.facility = fac;
}

const RFC5424 = /^<(\d{1,3})>(\d{1,2}) (\S+) (\S+) (\S+) (\S+) (\S+) ?/;

function parse5424(s: string): ObjectValue | undefined {
  const m = RFC5424.exec(s);
  if (!m) return undefined;
  const out: ObjectValue = {};
  const [, p, version, ts, host, app, proc, msgid] = m;
  let timestamp: Timestamp | undefined;
  if (ts !== '-') {
    timestamp = Timestamp.parse(ts!);
    if (!timestamp) return undefined;
  }
  let i = m[0].length;
  const sd: ObjectValue = {};
  if (s[i] === '-') i++;
  else if (s[i] === '[') {
    i = parseSd(s, i, sd);
    if (i < 0) return undefined;
  }
  let msg = s.slice(i);
  if (msg.startsWith(' ')) msg = msg.slice(1);
  if (msg.startsWith('\ufeff')) msg = msg.slice(1);
  out.message = msg;
  if (host !== '-') out.hostname = host!;
  pri(out, p);
  out.version = Number(version);
  if (app !== '-') out.appname = app!;
  if (msgid !== '-') out.msgid = msgid!;
  if (timestamp) out.timestamp = timestamp;
  if (proc !== '-') out.procid = procid(proc!);
  Object.assign(out, sd);
  return out;
}

const RFC3164 = /^(?:<(\d{1,3})>)?([A-Za-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?: (\d{4}))?(?: |:|$)/;
const RFC3164_ISO = /^(?:<(\d{1,3})>)?(\d{4}-\d{2}-\d{2}T\S+) /;

function parse3164(s: string, tz: string | undefined): ObjectValue | undefined {
  let p: string | undefined;
  let timestamp: Timestamp | undefined;
  let rest: string;
  const m = RFC3164.exec(s);
  if (m) {
    p = m[1];
    const month = MONTHS.indexOf(m[2]!.toLowerCase());
    if (month < 0) return undefined;
    const now = new Date();
    const year = m[8] ? Number(m[8]) : now.getUTCMonth() === 0 && month === 11 ? now.getUTCFullYear() - 1 : now.getUTCFullYear();
    const frac = (m[7] ?? '').padEnd(9, '0').slice(0, 9);
    const text = `${year}-${String(month + 1).padStart(2, '0')}-${m[3]!.padStart(2, '0')} ${m[4]}:${m[5]}:${m[6]}`;
    try {
      const base = compileFormat('%Y-%m-%d %H:%M:%S').parse(text, tz);
      const ns = Number(frac);
      timestamp = new Timestamp(base.ms + Math.floor(ns / 1e6), ns % 1e6);
    } catch {
      return undefined;
    }
    rest = s.slice(m[0].length);
  } else {
    const iso = RFC3164_ISO.exec(s);
    if (!iso) return undefined;
    p = iso[1];
    timestamp = Timestamp.parse(iso[2]!);
    if (!timestamp) return undefined;
    rest = s.slice(iso[0].length);
  }
  const out: ObjectValue = {};
  rest = rest.replace(/^ +/, '');
  let host: string | undefined;
  let app: string | undefined;
  let proc: string | undefined;
  const tagFirst = /^([^\s[\]:]+)(?:\[([^\]]*)\])?:(?: |$)?/.exec(rest);
  if (tagFirst) {
    app = tagFirst[1];
    proc = tagFirst[2];
    rest = rest.slice(tagFirst[0].length);
  } else {
    const sp = rest.indexOf(' ');
    if (sp > 0) {
      host = rest.slice(0, sp);
      rest = rest.slice(sp + 1);
      const tag = /^([^\s[\]:]+)(?:\[([^\]]*)\])?(?::(?: )?| )/.exec(rest);
      if (tag) {
        app = tag[1];
        proc = tag[2];
        rest = rest.slice(tag[0].length);
      }
    }
  }
  out.message = rest;
  if (host !== undefined) out.hostname = host;
  pri(out, p);
  if (app !== undefined) out.appname = app;
  out.timestamp = timestamp;
  if (proc !== undefined && proc !== '') out.procid = procid(proc);
  return out;
}

/** Parses one syslog line (RFC 5424 first, then RFC 3164). */
export function parseSyslog(text: string, tz: string | undefined): ObjectValue {
  const s = text.trim();
  const r = parse5424(s) ?? parse3164(s, tz);
  if (!r) return fail('unable to parse input as valid syslog message');
  return r;
}

const SYSLOG_KIND = K.objectKind(
  new Map<string, K.Kind>([
    ['message', K.K_BYTES],
    ['hostname', K.k(K.BYTES | K.NULL)],
    ['severity', K.k(K.BYTES | K.NULL)],
    ['facility', K.k(K.BYTES | K.NULL)],
    ['appname', K.k(K.BYTES | K.NULL)],
    ['msgid', K.k(K.BYTES | K.NULL)],
    ['timestamp', K.k(K.TIMESTAMP | K.NULL)],
    ['procid', K.k(K.BYTES | K.INTEGER | K.NULL)],
    ['version', K.k(K.INTEGER | K.NULL)],
  ]),
  K.objectOf(K.K_BYTES),
);

/** The functions of this file, for the stdlib list. */
export const syslogFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_syslog',
    description: 'Parses an RFC 5424 or RFC 3164 syslog line.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: SYSLOG_KIND,
    call: ([v], env) => parseSyslog(v as string, env.ctx.tz),
  }),
  defineFunction({
    name: 'parse_linux_authorization',
    description: 'Parses a Linux authorization (auth.log) line.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v], env) => parseSyslog(v as string, env.ctx.tz),
  }),
  defineFunction({
    name: 'to_syslog_level',
    description: 'Syslog level name of a severity number.',
    params: [{ name: 'value', kind: K.INTEGER, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => SEVERITIES[v as number] ?? fail(`severity level ${v} not valid`),
  }),
  defineFunction({
    name: 'to_syslog_severity',
    description: 'Syslog severity number of a level name.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_INTEGER,
    call: ([v]) => {
      const aliases: Record<string, number> = { emergency: 0, critical: 2, error: 3, warn: 4, informational: 6 };
      const i = SEVERITIES.indexOf(v as string);
      if (i >= 0) return i;
      return aliases[v as string] ?? fail(`syslog level ${v} not valid`);
    },
  }),
  defineFunction({
    name: 'to_syslog_facility',
    description: 'Syslog facility name of a facility code.',
    params: [{ name: 'value', kind: K.INTEGER, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => FACILITIES[v as number] ?? fail(`facility code ${v} not valid`),
  }),
  defineFunction({
    name: 'to_syslog_facility_code',
    description: 'Syslog facility code of a facility name.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_INTEGER,
    call: ([v]) => {
      const i = FACILITIES.indexOf(v as string);
      return i >= 0 ? i : fail(`syslog facility '${v}' not valid`);
    },
  }),
];
