/**
 * The HTTP Event Collector body format, shared by the Splunk HEC peer and the Humio peer (whose
 * HEC-compatible endpoint reads the same body): a series of JSON objects, concatenated or
 * whitespace separated, never a JSON array. Each object is an envelope (`event`, `time`, `host`,
 * `source`, `sourcetype`, `index`, `fields`); a metric event is `"event":"metric"` with its
 * measurements in `fields`, either `metric_name` + `_value` or `metric_name:<name>` keys.
 */

/** One envelope as sent; only the checked members are typed. */
export interface HecEnvelope {
  event?: unknown;
  /** Epoch seconds (fractional for sub-seconds) after reading a number or numeric string. */
  time?: number;
  host?: string;
  source?: string;
  sourcetype?: string;
  index?: string;
  fields?: Record<string, unknown>;
  /** The object as decoded, unknown members included. */
  raw: Record<string, unknown>;
}

/** Why a body was refused; `at` is the 0-based number of the offending event. */
export type HecBodyError =
  | { kind: 'no-data' }
  | { kind: 'invalid-format'; at: number }
  | { kind: 'event-required'; at: number }
  | { kind: 'event-blank'; at: number }
  | { kind: 'indexed-fields'; at: number };

/** The envelopes read before the first bad one, and the error when there is one. */
export interface HecBody {
  envelopes: HecEnvelope[];
  error: HecBodyError | undefined;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t';

/**
 * Splits concatenated JSON objects. Returns the object texts in order and, when the body goes
 * wrong, the number of the object where it did (anything but an object counts as wrong).
 */
export function splitJsonObjects(body: string): { objects: string[]; failedAt: number | undefined } {
  const objects: string[] = [];
  let i = 0;
  for (;;) {
    while (isSpace(body[i])) i++;
    if (i >= body.length) return { objects, failedAt: undefined };
    if (body[i] !== '{') return { objects, failedAt: objects.length };
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < body.length; i++) {
      const c = body[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) break;
      }
    }
    if (i >= body.length) return { objects, failedAt: objects.length };
    objects.push(body.slice(start, i + 1));
    i++;
  }
}

/** Reads `time`: a number, or a string holding one (HEC accepts both). */
function readTime(v: unknown): number | undefined | 'invalid' {
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return 'invalid';
}

/** `fields` values may be strings, numbers, or arrays of them; nothing nested deeper. */
function validIndexedFields(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const flat = (x: unknown) => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean';
  return Object.values(v).every((x) => flat(x) || (Array.isArray(x) && x.every(flat)));
}

/**
 * Reads a body. `requireEvent`: Splunk refuses an envelope without `event` (code 12) or with an
 * empty one (code 13); the Humio endpoint takes envelopes of optional members.
 */
export function parseHecBody(body: string, requireEvent: boolean): HecBody {
  const envelopes: HecEnvelope[] = [];
  if (body.trim() === '') return { envelopes, error: { kind: 'no-data' } };
  const { objects, failedAt } = splitJsonObjects(body);
  for (let n = 0; n < objects.length; n++) {
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(objects[n]!) as Record<string, unknown>;
    } catch {
      return { envelopes, error: { kind: 'invalid-format', at: n } };
    }
    if (requireEvent && !('event' in raw)) return { envelopes, error: { kind: 'event-required', at: n } };
    if (requireEvent && (raw.event === '' || raw.event === null)) return { envelopes, error: { kind: 'event-blank', at: n } };
    const time = readTime(raw.time);
    if (time === 'invalid') return { envelopes, error: { kind: 'invalid-format', at: n } };
    for (const key of ['host', 'source', 'sourcetype', 'index'] as const) {
      if (raw[key] !== undefined && typeof raw[key] !== 'string') return { envelopes, error: { kind: 'invalid-format', at: n } };
    }
    if (raw.fields !== undefined && !validIndexedFields(raw.fields)) return { envelopes, error: { kind: 'indexed-fields', at: n } };
    envelopes.push({
      event: raw.event,
      time,
      host: raw.host as string | undefined,
      source: raw.source as string | undefined,
      sourcetype: raw.sourcetype as string | undefined,
      index: raw.index as string | undefined,
      fields: raw.fields as Record<string, unknown> | undefined,
      raw,
    });
  }
  if (failedAt !== undefined) return { envelopes, error: { kind: 'invalid-format', at: failedAt } };
  return { envelopes, error: undefined };
}

/** One measurement of a metric event, as a metrics index stores it. */
export interface HecMetric {
  name: string;
  value: number;
  /** Every non-measurement field, as text. */
  dimensions: Record<string, string>;
  time: number | undefined;
  host: string | undefined;
  source: string | undefined;
  sourcetype: string | undefined;
  index: string | undefined;
}

const numeric = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};

/**
 * The measurements of a metric envelope, or why a metrics index would drop it (HEC itself
 * answers success; the drop happens at indexing, so a peer keeps the reason for assertions).
 */
export function metricsOf(env: HecEnvelope): { metrics: HecMetric[] } | { dropped: string } {
  const fields = env.fields ?? {};
  const base = { time: env.time, host: env.host, source: env.source, sourcetype: env.sourcetype, index: env.index };
  const dimensions: Record<string, string> = {};
  const measures: [string, unknown][] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (k.startsWith('metric_name:')) measures.push([k.slice('metric_name:'.length), v]);
    else if (k !== 'metric_name' && k !== '_value') dimensions[k] = Array.isArray(v) ? v.map(String).join(',') : String(v);
  }
  if ('metric_name' in fields || '_value' in fields) {
    if (typeof fields.metric_name !== 'string' || fields.metric_name === '') return { dropped: 'metric_name is missing or not a string' };
    measures.push([fields.metric_name, fields._value]);
  }
  if (measures.length === 0) return { dropped: 'no metric_name in fields' };
  const metrics: HecMetric[] = [];
  for (const [name, v] of measures) {
    if (name === '') return { dropped: 'empty metric name' };
    const value = numeric(v);
    if (value === undefined) return { dropped: `metric ${name}: value ${JSON.stringify(v)} is not numeric` };
    metrics.push({ name, value, dimensions, ...base });
  }
  return { metrics };
}

/** The token of an `Authorization` header in one of the given schemes (`Basic` carries it as the password). */
export function tokenOf(header: string | undefined, schemes: readonly ('Splunk' | 'Bearer' | 'Basic')[]): { token: string } | { missing: true } | { malformed: true } {
  if (header === undefined || header.trim() === '') return { missing: true };
  const m = /^(\S+)\s+(.+)$/.exec(header.trim());
  if (!m) return { malformed: true };
  const scheme = schemes.find((s) => s.toLowerCase() === m[1]!.toLowerCase());
  if (!scheme) return { malformed: true };
  if (scheme !== 'Basic') return { token: m[2]! };
  const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? { malformed: true } : { token: decoded.slice(colon + 1) };
}
