/**
 * One line of `journalctl --output=json` to one log event (Vector's legacy layout). Values are strings,
 * arrays of byte values (binary or invalid UTF-8, decoded lossily) or arrays of either (a field
 * that occurs more than once, kept as compact JSON text); anything else makes the record invalid.
 */
import { hostname } from 'node:os';
import { LogEvent, EventMetadata } from '../../../lib/event.js';
import { type ObjectValue, Timestamp } from '../../../lib/value.js';

/** A parsed record: every field as a string; `__CURSOR` taken out. */
export interface JournalRecord {
  readonly fields: Record<string, string>;
  readonly cursor: string | undefined;
}

const isByteArray = (a: unknown[]): a is number[] => {
  for (const x of a) if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > 255) return false;
  return true;
};

/** Parses one stdout line (already lossily decoded); a string says why the record is invalid. */
export function parseRecord(line: string): JournalRecord | string {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return `invalid JSON: ${(err as Error).message}`;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return 'not a JSON object';
  const raw = json as Record<string, unknown>;
  const fields: Record<string, string> = {};
  let cursor: string | undefined;
  for (const k in raw) {
    const value = raw[k];
    let s: string;
    if (typeof value === 'string') s = value;
    else if (Array.isArray(value)) s = isByteArray(value) ? Buffer.from(value).toString('utf8') : JSON.stringify(value);
    else return `field ${k} is ${value === null ? 'null' : typeof value}, not a string`;
    if (k === '__CURSOR') cursor = s;
    else fields[k] = s;
  }
  return { fields, cursor };
}

const PRIORITY_NAMES = ['EMERG', 'ALERT', 'CRIT', 'ERR', 'WARNING', 'NOTICE', 'INFO', 'DEBUG'];

/** `remap_priority`: a non-negative integer PRIORITY as its name; other text stays. */
export function priorityName(p: string): string {
  if (!/^\d+$/.test(p)) return p;
  return PRIORITY_NAMES[Number(p)] ?? 'UNKNOWN';
}

/** Microseconds since the epoch (decimal text) as a timestamp; undefined when not a number. */
function fromMicros(text: string | undefined): Timestamp | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const us = Number(text);
  if (!Number.isSafeInteger(us)) return undefined;
  return new Timestamp(Math.floor(us / 1000), (us % 1000) * 1000);
}

/** Where the event's well-known fields go (global `log_schema`). */
export interface EventKeys {
  readonly message: string;
  readonly host: string;
  readonly timestamp: string;
  readonly sourceType: string;
}

/** The local host name, used when a record carries no `_HOSTNAME`. */
export const LOCAL_HOST = hostname();

/**
 * The event of one record: `message` (from MESSAGE), `host` (from `_HOSTNAME`, else the local host
 * name), `timestamp` (`_SOURCE_REALTIME_TIMESTAMP`, else `__REALTIME_TIMESTAMP`), then the other
 * fields in journal order, then `source_type`.
 */
export function recordToEvent(r: JournalRecord, keys: EventKeys, remapPriority: boolean, sourceId: string): LogEvent {
  const f = r.fields;
  const out: ObjectValue = {};
  if (f.MESSAGE !== undefined) out[keys.message] = f.MESSAGE;
  out[keys.host] = f._HOSTNAME ?? LOCAL_HOST;
  const ts = fromMicros(f._SOURCE_REALTIME_TIMESTAMP) ?? fromMicros(f.__REALTIME_TIMESTAMP);
  if (ts !== undefined) out[keys.timestamp] = ts;
  for (const k in f) {
    if (k === 'MESSAGE' || k === '_HOSTNAME') continue;
    out[k] = remapPriority && k === 'PRIORITY' ? priorityName(f[k]!) : f[k]!;
  }
  out[keys.sourceType] = 'journal';
  return new LogEvent(out, new EventMetadata(sourceId, 'journal'));
}

/** The in-process filter (as in Vector): include = any pair matches; exclude = any pair matches. */
export function recordFilter(include: Map<string, Set<string>>, exclude: Map<string, Set<string>>): (fields: Record<string, string>) => boolean {
  const anyMatch = (m: Map<string, Set<string>>, fields: Record<string, string>) => {
    for (const [field, values] of m) {
      const v = fields[field];
      if (v !== undefined && values.has(v)) return true;
    }
    return false;
  };
  if (include.size === 0 && exclude.size === 0) return () => true;
  return (fields) => (include.size === 0 || anyMatch(include, fields)) && !(exclude.size > 0 && anyMatch(exclude, fields));
}
