/**
 * A strict InfluxDB line-protocol reader for the InfluxDB peers: it accepts what InfluxDB's own
 * scanner accepts and rejects the rest with the same reason texts (`missing fields`, `invalid
 * number`, `bad timestamp`, ...), so a sink that writes a line the server would refuse fails here.
 *
 * Line: `measurement[,tag=value...] field=value[,field=value...] [timestamp]`. Escapes follow the
 * server's scanner: a character after a backslash counts as escaped; measurements unescape `,` and
 * space, tag keys, tag values and field keys also `=`, string field values `"` and `\`.
 */

/** A typed field value; integers keep all 64 bits. */
export type FieldValue =
  | { type: 'float'; value: number }
  | { type: 'integer'; value: bigint }
  | { type: 'unsigned'; value: bigint }
  | { type: 'string'; value: string }
  | { type: 'boolean'; value: boolean };

/** One parsed point. */
export interface LinePoint {
  measurement: string;
  tags: Record<string, string>;
  fields: Record<string, FieldValue>;
  /** Epoch nanoseconds (the server's receive time when the line had none). */
  time: bigint;
  /** The line as written. */
  line: string;
}

/** Timestamp units: the 2.x names (`ns`, `us`) and the 1.x names (`n`, `u`, `m`, `h`). */
export type Precision = 'ns' | 'us' | 'ms' | 's' | 'n' | 'u' | 'm' | 'h';

export interface ParseOptions {
  precision?: Precision;
  /** The `u` suffix for unsigned integers (InfluxDB 1.8+ and 2.x); off = 1.x before 1.8. */
  unsigned?: boolean;
  /** Time given to lines without a timestamp, epoch ns. */
  now?: bigint;
}

const NS_PER: Record<Precision, bigint> = { ns: 1n, n: 1n, us: 1_000n, u: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
/** The server keeps two values of int64 free for sentinels. */
const MIN_NANO = -9223372036854775806n;
const MAX_NANO = 9223372036854775806n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

class LineError extends Error {}
const fail = (reason: string): never => {
  throw new LineError(reason);
};

const isWhite = (c: string | undefined) => c === ' ' || c === '\t' || c === '\0';
const isNumeric = (c: string | undefined) => c !== undefined && ((c >= '0' && c <= '9') || c === '.');

/** Splits a body into lines; a newline inside a quoted string field does not end a line. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  let i = 0;
  let quoted = false;
  let inFields = false;
  let equals = 0;
  let commas = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === ' ') inFields = true;
    if (inFields) {
      if (!quoted && c === '=') {
        equals++;
        i++;
        continue;
      }
      if (!quoted && c === ',') {
        commas++;
        i++;
        continue;
      }
      if (c === '"' && equals > commas) {
        quoted = !quoted;
        i++;
        continue;
      }
    }
    if (c === '\n' && !quoted) {
      lines.push(text.slice(start, i));
      start = i + 1;
      inFields = false;
      equals = 0;
      commas = 0;
    }
    i++;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Parses a whole write body: every good point, and one `unable to parse '<line>': <reason>` per bad line. */
export function parseLineProtocol(text: string, options: ParseOptions = {}): { points: LinePoint[]; errors: string[] } {
  const points: LinePoint[] = [];
  const errors: string[] = [];
  const now = options.now ?? BigInt(Date.now()) * 1_000_000n;
  for (const block of splitLines(text)) {
    let s = 0;
    while (s < block.length && isWhite(block[s])) s++;
    if (s >= block.length || block[s] === '#') continue; // blank line or comment
    const line = block.slice(s);
    try {
      points.push(parsePoint(line, options, now));
    } catch (err) {
      if (!(err instanceof LineError)) throw err;
      errors.push(`unable to parse '${line}': ${err.message}`);
    }
  }
  return { points, errors };
}

const unescapeMeasurement = (s: string) => s.replace(/\\([, ])/g, '$1');
const unescapeTag = (s: string) => s.replace(/\\([, =])/g, '$1');
function unescapeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && (s[i + 1] === '\\' || s[i + 1] === '"')) out += s[++i];
    else out += s[i];
  }
  return out;
}

function parsePoint(line: string, options: ParseOptions, now: bigint): LinePoint {
  let i = 0;
  // measurement: up to an unescaped comma (tags follow) or space (fields follow)
  if (i >= line.length || line[i] === ',') fail('missing measurement');
  let toTags = false;
  for (;;) {
    i++;
    if (i >= line.length) fail('missing fields');
    if (line[i - 1] === '\\') continue;
    if (line[i] === ',') {
      toTags = true;
      break;
    }
    if (line[i] === ' ') break;
  }
  const measurement = unescapeMeasurement(line.slice(0, i));
  const rawTags: [string, string][] = [];
  if (toTags) i = scanTags(line, i + 1, rawTags);
  const keys = rawTags.map(([k]) => k);
  if (new Set(keys).size !== keys.length) fail('duplicate tags');

  while (i < line.length && isWhite(line[i])) i++;
  const fieldsStart = i;
  i = scanFields(line, i, options.unsigned ?? false);
  const fieldText = line.slice(fieldsStart, i);
  if (fieldText.length === 0) fail('missing fields');

  while (i < line.length && isWhite(line[i])) i++;
  const tsStart = i;
  for (; i < line.length && line[i] !== ' ' && line[i] !== '\n'; i++) {
    if (i === tsStart && line[i] === '-') continue;
    if (line[i]! < '0' || line[i]! > '9') fail('bad timestamp');
  }
  const tsText = line.slice(tsStart, i);
  let time = now;
  if (tsText.length > 0) {
    if (tsText === '-') fail(`strconv.ParseInt: parsing "${tsText}": invalid syntax`);
    const ts = BigInt(tsText);
    if (ts < INT64_MIN || ts > INT64_MAX) fail(`strconv.ParseInt: parsing "${tsText}": value out of range`);
    time = ts * NS_PER[options.precision ?? 'ns'];
    if (time < MIN_NANO || time > MAX_NANO) fail(`time outside range ${MIN_NANO} - ${MAX_NANO}`);
    for (; i < line.length; i++) if (line[i] !== ' ') fail('point is invalid');
  }

  const tags: Record<string, string> = {};
  for (const [k, v] of rawTags) tags[unescapeTag(k)] = unescapeTag(v);
  return { measurement, tags, fields: fieldValues(fieldText), time, line };
}

/** Scans `key=value[,key=value]` up to the space before the fields; returns that position. */
function scanTags(line: string, i: number, out: [string, string][]): number {
  for (;;) {
    const keyStart = i;
    if (i >= line.length || line[i] === ' ' || line[i] === ',' || line[i] === '=') fail('missing tag key');
    for (;;) {
      i++;
      if (i >= line.length || ((line[i] === ' ' || line[i] === ',') && line[i - 1] !== '\\')) fail('missing tag value');
      if (line[i] === '=' && line[i - 1] !== '\\') break;
    }
    const key = line.slice(keyStart, i);
    i++;
    const valueStart = i;
    if (i >= line.length || line[i] === ',' || line[i] === ' ') fail('missing tag value');
    for (;;) {
      i++;
      if (i >= line.length) fail('missing fields');
      if (line[i] === '=' && line[i - 1] !== '\\') fail('invalid tag format');
      if ((line[i] === ',' || line[i] === ' ') && line[i - 1] !== '\\') break;
    }
    out.push([key, line.slice(valueStart, i)]);
    if (line[i] === ' ') return i;
    i++;
  }
}

/** Checks the field section as the server's scanner does; returns the position after it. */
function scanFields(line: string, i: number, unsigned: boolean): number {
  let quoted = false;
  let equals = 0;
  let commas = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '\\' && i + 1 < line.length) {
      i += 2;
      continue;
    }
    if (c === '"' && equals > commas) {
      quoted = !quoted;
      i++;
      continue;
    }
    if (c === '=' && !quoted) {
      equals++;
      if ((line[i - 1] === ' ' || line[i - 1] === ',') && line[i - 2] !== '\\') fail('missing field key');
      const next = line[i + 1];
      if (next === undefined || next === ',' || next === ' ') fail('missing field value');
      if (isNumeric(next) || next === '-' || next === 'N' || next === 'n') {
        i = scanNumber(line, i + 1, unsigned);
        continue;
      }
      if (next !== '"') {
        i = scanBoolean(line, i + 1);
        continue;
      }
    }
    if (c === ',' && !quoted) commas++;
    if (c === ' ' && !quoted) break;
    i++;
  }
  if (quoted) fail('unbalanced quotes');
  if (equals === 0 || commas !== equals - 1) fail('invalid field format');
  return i;
}

function scanNumber(line: string, i: number, unsigned: boolean): number {
  const start = i;
  let suffix: 'i' | 'u' | undefined;
  if (line[i] === '-') {
    i++;
    if (i === line.length) fail('invalid number');
  }
  let decimal = false;
  let scientific = false;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ',' || c === ' ') break;
    if ((c === 'i' || (unsigned && c === 'u')) && i > start && suffix === undefined) {
      suffix = c;
      i++;
      continue;
    }
    if (c === '.') {
      if (decimal) fail('invalid number');
      decimal = true;
    }
    if (i > start && (c === 'e' || c === 'E')) {
      scientific = true;
      i++;
      continue;
    }
    if ((c === '+' || c === '-') && (line[i - 1] === 'e' || line[i - 1] === 'E')) {
      i++;
      continue;
    }
    if (i + 2 < line.length && (c === 'N' || c === 'n')) fail('invalid number'); // NaN is not storable
    if (!isNumeric(c)) fail('invalid number');
    i++;
  }
  if (suffix && (decimal || scientific)) fail('invalid number');
  const digits = i - start - (suffix ? 1 : 0) - (decimal ? 1 : 0) - (line[start] === '-' ? 1 : 0);
  if (digits <= 0) fail('invalid number');
  if (suffix) {
    if (line[i - 1] !== suffix) fail('invalid number'); // `9i10`
    const text = line.slice(start, i - 1);
    if (suffix === 'u' && text.startsWith('-')) fail('invalid number');
    const [lo, hi, kind] = suffix === 'i' ? [INT64_MIN, INT64_MAX, 'Int'] : [0n, UINT64_MAX, 'Uint'];
    const n = BigInt(text);
    if (n < lo || n > hi) fail(`unable to parse ${suffix === 'i' ? 'integer' : 'unsigned'} ${text}: strconv.Parse${kind}: parsing "${text}": value out of range`);
  } else {
    const n = Number(line.slice(start, i));
    if (!Number.isFinite(n)) fail('invalid float');
  }
  return i;
}

const BOOLEANS = new Set(['t', 'T', 'f', 'F', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

function scanBoolean(line: string, i: number): number {
  const start = i;
  while (i < line.length && line[i] !== ',' && line[i] !== ' ') i++;
  if (!BOOLEANS.has(line.slice(start, i))) fail('invalid boolean');
  return i;
}

/** Splits an already checked field section into typed values; a repeated key keeps the last. */
function fieldValues(text: string): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  let i = 0;
  while (i < text.length) {
    const keyStart = i;
    while (i < text.length && !(text[i] === '=' && text[i - 1] !== '\\')) i++;
    const key = unescapeTag(text.slice(keyStart, i));
    i++;
    const valueStart = i;
    let quoted = false;
    while (i < text.length) {
      if (text[i] === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
        i += 2;
        continue;
      }
      if (text[i] === '"') quoted = !quoted;
      else if (text[i] === ',' && !quoted) break;
      i++;
    }
    out[key] = typedValue(text.slice(valueStart, i));
    i++;
  }
  return out;
}

function typedValue(raw: string): FieldValue {
  if (raw.startsWith('"')) return { type: 'string', value: unescapeString(raw.slice(1, -1)) };
  if (BOOLEANS.has(raw)) return { type: 'boolean', value: raw[0] === 't' || raw[0] === 'T' };
  if (raw.endsWith('i')) return { type: 'integer', value: BigInt(raw.slice(0, -1)) };
  if (raw.endsWith('u')) return { type: 'unsigned', value: BigInt(raw.slice(0, -1)) };
  return { type: 'float', value: Number(raw) };
}
