/**
 * The Prometheus text exposition format (0.0.4), read into metric families the way Vector's
 * parser groups them: a `# TYPE` line opens a family; the samples after it belong to it while
 * their names are the family name plus a suffix its type owns (`_bucket`, `_sum`, `_count`);
 * any other sample opens an untyped family of its own name. `# HELP` and other comments are
 * skipped; OpenMetrics' `# EOF` is a comment and its `unknown` type reads as untyped.
 * One malformed line fails the whole text, as in Vector.
 */

/** The families' types. */
export type FamilyType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/** Labels (sorted by name when converted) and the sample's own timestamp in ms. */
export interface SampleKey {
  readonly labels: Record<string, string>;
  readonly timestamp: number | undefined;
}
export interface SimplePoint extends SampleKey {
  value: number;
}
export interface HistogramPoint extends SampleKey {
  buckets: { bound: number; count: number }[];
  sum: number;
  count: number;
}
export interface SummaryPoint extends SampleKey {
  quantiles: { quantile: number; value: number }[];
  sum: number;
  count: number;
}

/** One family: its name, type and points in order of appearance. */
export type Family =
  | { readonly name: string; readonly type: 'counter' | 'gauge' | 'untyped'; readonly points: SimplePoint[] }
  | { readonly name: string; readonly type: 'histogram'; readonly points: HistogramPoint[] }
  | { readonly name: string; readonly type: 'summary'; readonly points: SummaryPoint[] };

/** One sample line. */
export interface SampleLine {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
  readonly timestamp: number | undefined;
}

/** A line the format does not allow; the message names the line (1-based) and what is wrong. */
export class ParseError extends Error {
  override readonly name = 'ParseError';
}

const TYPES: Record<string, FamilyType> = { counter: 'counter', gauge: 'gauge', histogram: 'histogram', summary: 'summary', untyped: 'untyped', unknown: 'untyped' };
const NAME_START = /[a-zA-Z_:]/;
const NAME_CHAR = /[a-zA-Z0-9_:]/;

/** Parses a whole exposition; throws {@link ParseError}. */
export function parseText(text: string): Family[] {
  const families: Family[] = [];
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    start = end + 1;
    try {
      readLine(line, families);
    } catch (err) {
      if (err instanceof ParseError) throw new ParseError(`line ${lineNo}: ${err.message}: \`${line.length > 200 ? `${line.slice(0, 200)}…` : line}\``);
      throw err;
    }
  }
  return families;
}

function readLine(line: string, families: Family[]): void {
  let i = skipSpace(line, 0);
  if (i === line.length) return;
  if (line[i] === '#') {
    const words = line.slice(i + 1).trim().split(/[ \t]+/);
    if (words[0] !== 'TYPE') return;
    const [, name, kind] = words;
    if (name === undefined || !isName(name)) throw new ParseError('TYPE without a valid metric name');
    const type = kind === undefined ? undefined : TYPES[kind];
    if (type === undefined) throw new ParseError(`invalid metric type ${JSON.stringify(kind ?? '')}`);
    families.push({ name, type, points: [] } as Family);
    return;
  }
  const sample = parseSampleLine(line, i);
  const last = families[families.length - 1];
  if (last !== undefined && pushSample(last, sample)) return;
  families.push({ name: sample.name, type: 'untyped', points: [{ labels: sample.labels, timestamp: sample.timestamp, value: sample.value }] });
}

/** Adds a sample to a family when its name belongs there; false when it opens another family. */
export function pushSample(f: Family, s: SampleLine): boolean {
  if (!s.name.startsWith(f.name)) return false;
  const suffix = s.name.slice(f.name.length);
  switch (f.type) {
    case 'counter':
    case 'gauge':
    case 'untyped':
      if (suffix !== '') return false;
      f.points.push({ labels: s.labels, timestamp: s.timestamp, value: s.value });
      return true;
    case 'histogram': {
      if (suffix !== '_bucket' && suffix !== '_sum' && suffix !== '_count') return false;
      let bound: number | undefined;
      if (suffix === '_bucket') {
        const le = s.labels.le;
        if (le === undefined) throw new ParseError('expected "le" label for histogram bucket');
        bound = parseNumber(le.trim(), 'le');
        delete s.labels.le;
      }
      const p = pointOf(f.points, s, () => ({ labels: s.labels, timestamp: s.timestamp, buckets: [], sum: 0, count: 0 }));
      if (bound !== undefined) p.buckets.push({ bound, count: asCount(s.value) });
      else if (suffix === '_sum') p.sum = s.value;
      else p.count = asCount(s.value);
      return true;
    }
    case 'summary': {
      if (suffix !== '' && suffix !== '_sum' && suffix !== '_count') return false;
      let quantile: number | undefined;
      if (suffix === '') {
        const q = s.labels.quantile;
        if (q === undefined) throw new ParseError('expected "quantile" label for summary sample');
        quantile = parseNumber(q.trim(), 'quantile');
        delete s.labels.quantile;
      }
      const p = pointOf(f.points, s, () => ({ labels: s.labels, timestamp: s.timestamp, quantiles: [], sum: 0, count: 0 }));
      if (quantile !== undefined) p.quantiles.push({ quantile, value: s.value });
      else if (suffix === '_sum') p.sum = s.value;
      else p.count = asCount(s.value);
      return true;
    }
  }
}

/** The point with the same labels and timestamp, made when missing (samples of one point may interleave). */
function pointOf<P extends SampleKey>(points: P[], s: SampleLine, make: () => P): P {
  // the point being filled is nearly always the last one
  for (let i = points.length - 1; i >= 0; i--) {
    const p = points[i]!;
    if (p.timestamp === s.timestamp && sameLabels(p.labels, s.labels)) return p;
  }
  const p = make();
  points.push(p);
  return p;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

/** Counts are whole and non-negative (Vector keeps them as u64). */
function asCount(v: number): number {
  if (!(v >= 0) || v > Number.MAX_SAFE_INTEGER * 2048) throw new ParseError(`count out of range: ${v}`);
  return Math.trunc(v);
}

/** Parses one sample line from `i` (leading space skipped). */
export function parseSampleLine(line: string, i = 0): SampleLine {
  const nameEnd = nameEndAt(line, i);
  if (nameEnd === i) throw new ParseError('metric name must start with [a-zA-Z_:]');
  const name = line.slice(i, nameEnd);
  i = skipSpace(line, nameEnd);
  const labels: Record<string, string> = {};
  if (line[i] === '{') i = parseLabels(line, i + 1, labels);
  const valueStart = skipSpace(line, i);
  const before = line[valueStart - 1];
  if (valueStart < line.length && before !== ' ' && before !== '\t') throw new ParseError('expected a space before the value');
  let valueEnd = valueStart;
  while (valueEnd < line.length && line[valueEnd] !== ' ' && line[valueEnd] !== '\t') valueEnd++;
  if (valueEnd === valueStart) throw new ParseError('missing value');
  const value = parseNumber(line.slice(valueStart, valueEnd), 'value');
  const tsStart = skipSpace(line, valueEnd);
  let timestamp: number | undefined;
  if (tsStart < line.length) {
    let tsEnd = tsStart;
    while (tsEnd < line.length && line[tsEnd] !== ' ' && line[tsEnd] !== '\t') tsEnd++;
    const text = line.slice(tsStart, tsEnd);
    if (!/^[-+]?\d+$/.test(text)) throw new ParseError(`timestamp must be integer milliseconds, got ${JSON.stringify(text)}`);
    timestamp = Number(text);
    if (skipSpace(line, tsEnd) !== line.length) throw new ParseError('unexpected text after the timestamp');
  }
  return { name, labels, value, timestamp };
}

/** Reads `name="value", …}` into `out`; returns the index after `}`. */
function parseLabels(line: string, i: number, out: Record<string, string>): number {
  for (;;) {
    i = skipSpace(line, i);
    if (line[i] === '}') return i + 1;
    const end = nameEndAt(line, i);
    if (end === i || line[i] === ':') throw new ParseError('label name must start with [a-zA-Z_]');
    const name = line.slice(i, end);
    i = skipSpace(line, end);
    if (line[i] !== '=') throw new ParseError('expected "=" after a label name');
    i = skipSpace(line, i + 1);
    if (line[i] !== '"') throw new ParseError('expected \'"\' to open a label value');
    let value = '';
    let j = i + 1;
    for (;;) {
      if (j >= line.length) throw new ParseError('unterminated label value');
      const c = line[j]!;
      if (c === '"') break;
      if (c === '\\') {
        const n = line[j + 1];
        // the format defines three escapes; any other backslash stays as written, as Prometheus reads it
        if (n === 'n') value += '\n';
        else if (n === '\\' || n === '"') value += n;
        else value += `\\${n ?? ''}`;
        j += 2;
      } else {
        value += c;
        j++;
      }
    }
    out[name] = value;
    i = skipSpace(line, j + 1);
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new ParseError('expected "," or "}" after a label value');
  }
}

/** A float as the format writes it: Go's syntax, `NaN`, `+Inf`, `-Inf` (any case). */
export function parseNumber(text: string, what: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === '+inf' || lower === 'inf' || lower === '+infinity' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  // Number() would accept '', hex and binary forms, which the format does not
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new ParseError(`${what} is not a number: ${JSON.stringify(text)}`);
  return Number(text);
}

function nameEndAt(s: string, i: number): number {
  if (i >= s.length || !NAME_START.test(s[i]!)) return i;
  let j = i + 1;
  while (j < s.length && NAME_CHAR.test(s[j]!)) j++;
  return j;
}

const isName = (s: string) => nameEndAt(s, 0) === s.length && s.length > 0;

function skipSpace(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  return i;
}
