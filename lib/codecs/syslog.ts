/**
 * Syslog parsing, lenient (`parseSyslog`) or exact (`parseSyslogExact`): RFC 5424
 * (`<PRI>1 TS HOST APP PROCID MSGID SD MSG`) and RFC 3164
 * (`<PRI>Mmm dd hh:mm:ss HOST TAG[PID]: MSG`), into Vector's field layout: `message`, timestamp,
 * `hostname`, `severity`, `facility` (names), `version` (5424 only), `appname`, `msgid`, `procid`
 * (integer when numeric), and each structured-data element at the root under its SD-ID.
 * Hand-written scanning (indexOf), no regular expression per message.
 */
import { type Zone, getZone, localToUtc } from '../time/zone.js';
import type { ObjectValue } from '../value.js';
import { Timestamp } from '../value.js';

const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];
const FACILITIES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp', 'ntp', 'audit', 'alert', 'clockd',
  'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7',
];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A parsed syslog message; absent parts are undefined. */
export interface SyslogMessage {
  facility?: string;
  severity?: string;
  version?: number;
  timestamp?: Timestamp;
  hostname?: string;
  appname?: string;
  procid?: number | string;
  msgid?: string;
  structuredData?: [string, Record<string, string>][];
  message: string;
}

/** Clock and zone for RFC 3164 timestamps. */
export interface SyslogOptions {
  /** Current time, for the year of RFC 3164 timestamps (which carry none). */
  now?: () => number;
  /** Zone of RFC 3164 timestamps, which carry none: `local`, an IANA name or an offset; default UTC. */
  timezone?: string | undefined;
}

/** Parses one message; never throws: text that is not syslog becomes the message. */
export function parseSyslog(input: string, opts: SyslogOptions = {}): SyslogMessage {
  return parseLine(input, opts).message;
}

/**
 * Parses one message strictly, as Vector's syslog source and codec do (syslog_loose's exact
 * parse): undefined unless it is RFC 5424 or has an RFC 3164 header (optional PRI, then a
 * timestamp: `Mmm dd hh:mm:ss`, `Mmm dd yyyy hh:mm:ss`, RFC 3339, or `-`).
 */
export function parseSyslogExact(input: string, opts: SyslogOptions = {}): SyslogMessage | undefined {
  const r = parseLine(input, opts);
  return r.hasHeader ? r.message : undefined;
}

/** The parsed message, and whether it had a syslog header (5424, or a 3164 timestamp). */
interface ParsedLine {
  readonly message: SyslogMessage;
  readonly hasHeader: boolean;
}

function parseLine(input: string, opts: SyslogOptions): ParsedLine {
  const line = input.trim();
  const out: SyslogMessage = { message: line };
  let pos = 0;
  if (line.charCodeAt(0) === 0x3c /* < */) {
    const close = line.indexOf('>', 1);
    const pri = close > 1 && close <= 4 ? Number(line.slice(1, close)) : NaN;
    if (Number.isInteger(pri) && pri >= 0 && pri <= 191) {
      out.facility = FACILITIES[pri >> 3];
      out.severity = SEVERITIES[pri & 7];
      pos = close + 1;
    }
  }
  // RFC 5424: a version number then a space
  let v = pos;
  while (v < line.length && v - pos < 3 && isDigit(line.charCodeAt(v))) v++;
  if (v > pos && line.charCodeAt(v) === 0x20 && line.charCodeAt(pos) !== 0x30) {
    const r = parse5424(line, v + 1, out);
    if (r) {
      out.version = Number(line.slice(pos, v));
      return { message: out, hasHeader: true };
    }
  }
  const hasHeader = parse3164(line, pos, out, opts);
  return { message: out, hasHeader };
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Reads a space-terminated token starting at pos; returns [token, next position]. */
function token(line: string, pos: number): [string, number] {
  const sp = line.indexOf(' ', pos);
  return sp < 0 ? [line.slice(pos), line.length] : [line.slice(pos, sp), sp + 1];
}

function parse5424(line: string, start: number, out: SyslogMessage): boolean {
  let pos = start;
  const [ts, p1] = token(line, pos);
  let timestamp: Timestamp | undefined;
  if (ts !== '-') {
    timestamp = Timestamp.parse(ts);
    if (!timestamp) return false;
  }
  pos = p1;
  const fields: (string | undefined)[] = [];
  for (let i = 0; i < 4; i++) {
    if (pos >= line.length) return false;
    const [t, p] = token(line, pos);
    fields.push(t === '-' ? undefined : t);
    pos = p;
  }
  if (timestamp) out.timestamp = timestamp;
  const [host, app, proc, msgid] = fields;
  if (host !== undefined) out.hostname = host;
  if (app !== undefined) out.appname = app;
  if (proc !== undefined) out.procid = /^\d+$/.test(proc) ? Number(proc) : proc;
  if (msgid !== undefined) out.msgid = msgid;
  // structured data: "-" or one or more [id k="v" …]
  if (line.charCodeAt(pos) === 0x2d /* - */) {
    pos += 1;
  } else if (line.charCodeAt(pos) === 0x5b /* [ */) {
    const sd: [string, Record<string, string>][] = [];
    while (line.charCodeAt(pos) === 0x5b) {
      const r = parseElement(line, pos + 1);
      if (!r) break;
      sd.push(r[0]);
      pos = r[1];
    }
    if (sd.length > 0) out.structuredData = sd;
  }
  // every space before the message goes (rsyslog's RFC 5424 template sends two)
  while (line.charCodeAt(pos) === 0x20) pos++;
  let msg = line.slice(pos);
  if (msg.charCodeAt(0) === 0xfeff) msg = msg.slice(1);
  out.message = msg;
  return true;
}

/** Parses `id k="v" …]` from after the `[`; returns the element and the position after `]`. */
function parseElement(line: string, start: number): [[string, Record<string, string>], number] | undefined {
  let pos = start;
  let end = pos;
  while (end < line.length && line[end] !== ' ' && line[end] !== ']') end++;
  const id = line.slice(pos, end);
  if (!id) return undefined;
  pos = end;
  const params: Record<string, string> = {};
  for (;;) {
    if (line[pos] === ']') return [[id, params], pos + 1];
    if (line[pos] !== ' ') return undefined;
    pos++;
    const eq = line.indexOf('=', pos);
    if (eq < 0 || line[eq + 1] !== '"') return undefined;
    const name = line.slice(pos, eq);
    let value = '';
    let i = eq + 2;
    for (; i < line.length && line[i] !== '"'; i++) {
      const c = line[i]!;
      if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\' || line[i + 1] === ']')) value += line[++i];
      else value += c;
    }
    if (i >= line.length) return undefined;
    params[name] = value;
    pos = i + 1;
  }
}

/** Fills `out` from an RFC 3164 line; returns whether it had a timestamp (or `-` in its place). */
function parse3164(line: string, start: number, out: SyslogMessage, opts: SyslogOptions): boolean {
  let pos = start;
  let hasTimestamp = false;
  while (line.charCodeAt(pos) === 0x20) pos++;
  const ts = parse3164Timestamp(line, pos, opts);
  if (ts) {
    out.timestamp = ts[0];
    pos = ts[1];
    hasTimestamp = true;
  } else {
    const [t, p] = token(line, pos);
    const rfc = Timestamp.parse(t);
    if (rfc) {
      out.timestamp = rfc;
      pos = p;
      hasTimestamp = true;
    } else if (t === '-' && p > pos) {
      // a nil timestamp: the header is there, its time is not (the receive time fills in)
      pos = p;
      hasTimestamp = true;
    }
  }
  while (line.charCodeAt(pos) === 0x20) pos++;
  // HOST, then TAG: a word ending in ":" or holding "[pid]" is a tag (the host may be missing)
  let [word, next] = token(line, pos);
  if (word && !isTag(word) && next < line.length) {
    const [after] = token(line, next);
    if (isTag(after) || out.timestamp) {
      out.hostname = word;
      pos = next;
      [word, next] = token(line, pos);
    }
  }
  if (word && isTag(word)) {
    const colon = word.endsWith(':') ? word.slice(0, -1) : word;
    const open = colon.indexOf('[');
    if (open >= 0 && colon.endsWith(']')) {
      const app = colon.slice(0, open);
      const proc = colon.slice(open + 1, -1);
      if (app) out.appname = app;
      if (proc) out.procid = /^\d+$/.test(proc) ? Number(proc) : proc;
    } else if (colon) {
      out.appname = colon;
    }
    pos = next;
  }
  out.message = line.slice(pos);
  return hasTimestamp;
}

function isTag(word: string): boolean {
  if (word.endsWith(':')) return word.length > 1;
  const open = word.indexOf('[');
  return open > 0 && word.endsWith(']');
}

/** `Mmm dd hh:mm:ss` (day space-padded) → timestamp and the position after it. */
function parse3164Timestamp(line: string, pos: number, opts: SyslogOptions): [Timestamp, number] | undefined {
  const month = MONTHS.indexOf(line.slice(pos, pos + 3));
  if (month < 0 || line[pos + 3] !== ' ') return undefined;
  let p = pos + 4;
  if (line[p] === ' ') p++;
  let day = 0;
  const dayStart = p;
  while (isDigit(line.charCodeAt(p)) && p - dayStart < 2) day = day * 10 + line.charCodeAt(p++) - 0x30;
  if (p === dayStart || line[p] !== ' ') return undefined;
  p++;
  // `Mmm dd yyyy hh:mm:ss`: a year between the day and the time (some network devices send it)
  let givenYear: number | undefined;
  if (line[p + 4] === ' ' && isDigit(line.charCodeAt(p)) && isDigit(line.charCodeAt(p + 1)) && isDigit(line.charCodeAt(p + 2)) && isDigit(line.charCodeAt(p + 3))) {
    givenYear = Number(line.slice(p, p + 4));
    p += 5;
  }
  const hms = line.slice(p, p + 8);
  if (hms.length !== 8 || hms[2] !== ':' || hms[5] !== ':') return undefined;
  const h = Number(hms.slice(0, 2));
  const m = Number(hms.slice(3, 5));
  const s = Number(hms.slice(6, 8));
  if (!Number.isInteger(h) || !Number.isInteger(m) || !Number.isInteger(s)) return undefined;
  p += 8;
  let ms = 0;
  if (line[p] === '.') {
    let q = p + 1;
    while (isDigit(line.charCodeAt(q))) q++;
    ms = Math.floor(Number('0' + line.slice(p, q)) * 1000);
    p = q;
  }
  const zone: Zone = getZone(opts.timezone);
  const nowMs = opts.now ? opts.now() : Date.now();
  // the current date in the message's zone, shifted so UTC getters read it
  const nowLocal = new Date(nowMs + zone.offsetAt(nowMs) * 1000);
  const nowYear = nowLocal.getUTCFullYear();
  // no year on the wire: a December message read in January belongs to last year
  const year = givenYear ?? (nowLocal.getUTCMonth() === 0 && month === 11 ? nowYear - 1 : nowYear);
  const wallSecs = Date.UTC(year, month, day, h, m, s) / 1000;
  return [new Timestamp(localToUtc(zone, wallSecs) * 1000 + ms, 0), p];
}

/** Writes a parsed message into event fields (Vector's legacy layout). */
export function syslogToFields(msg: SyslogMessage, messageKey: string, timestampKey: string): ObjectValue {
  const f: ObjectValue = {};
  f[messageKey] = msg.message;
  if (msg.timestamp) f[timestampKey] = msg.timestamp;
  if (msg.hostname !== undefined) f.hostname = msg.hostname;
  if (msg.severity !== undefined) f.severity = msg.severity;
  if (msg.facility !== undefined) f.facility = msg.facility;
  if (msg.version !== undefined) f.version = msg.version;
  if (msg.appname !== undefined) f.appname = msg.appname;
  if (msg.msgid !== undefined) f.msgid = msg.msgid;
  if (msg.procid !== undefined) f.procid = msg.procid;
  if (msg.structuredData) for (const [id, params] of msg.structuredData) f[id] = { ...params };
  return f;
}
