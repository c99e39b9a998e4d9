/** parse_influxdb: InfluxDB line protocol to gauge metrics. */
import { type ObjectValue, type Value, Float, Timestamp } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** Splits on `sep` outside double quotes, honouring backslash escapes. */
function splitUnquoted(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      cur += c;
    } else if (c === sep && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const unescapeInflux = (s: string): string => s.replace(/\\([,= \\"])/g, '$1');

/** InfluxDB line protocol: one gauge metric per numeric/boolean field, named `<measurement>_<field>`. */
function parseInflux(line: string): Value[] {
  const parts = splitUnquoted(line.trim(), ' ').filter((p) => p !== '');
  if (parts.length < 2) return fail('InfluxDB line protocol parsing error: No fields were provided');
  const [head, fieldSet, ts] = parts as [string, string, string | undefined];
  const headParts = splitUnquoted(head, ',');
  const measurement = unescapeInflux(headParts[0]!);
  const tags: ObjectValue = {};
  for (const t of headParts.slice(1)) {
    const eq = t.indexOf('=');
    if (eq < 0) return fail('InfluxDB line protocol parsing error: invalid tag set');
    tags[unescapeInflux(t.slice(0, eq))] = unescapeInflux(t.slice(eq + 1));
  }
  let timestamp: Timestamp | undefined;
  if (ts !== undefined) {
    if (!/^-?\d+$/.test(ts)) return fail('InfluxDB line protocol parsing error: invalid timestamp');
    timestamp = Timestamp.fromNanos(BigInt(ts));
  }
  const out: Value[] = [];
  for (const f of splitUnquoted(fieldSet, ',')) {
    const eq = f.indexOf('=');
    if (eq < 0) return fail('InfluxDB line protocol parsing error: invalid field set');
    const key = unescapeInflux(f.slice(0, eq));
    const raw = f.slice(eq + 1);
    let n: number;
    if (/^[+-]?\d+[iu]$/.test(raw)) n = Number(raw.slice(0, -1));
    else if (/^(t|T|true|True|TRUE)$/.test(raw)) n = 1;
    else if (/^(f|F|false|False|FALSE)$/.test(raw)) n = 0;
    else if (raw.startsWith('"')) return fail("Error while converting InfluxDB line protocol metric to Vector's metric model: field set values of type string are not supported");
    else {
      n = Number(raw);
      if (raw === '' || Number.isNaN(n)) return fail("Error while converting InfluxDB line protocol metric to Vector's metric model: NaN field set values are not supported");
    }
    const m: ObjectValue = { name: `${measurement}_${key}` };
    if (headParts.length > 1) m.tags = { ...tags };
    if (timestamp) m.timestamp = timestamp;
    m.kind = 'absolute';
    m.gauge = { value: new Float(n) };
    out.push(m);
  }
  return out;
}

/** The functions of this file, for the stdlib list. */
export const influxFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_influxdb',
    description: 'Parses an InfluxDB line protocol line into metrics.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.arrayOf(K.K_OBJECT),
    call: ([v]) => parseInflux(v as string),
  }),
];
