/**
 * The HTTP Event Collector body (Splunk's HEC format), written the same way by `siem_hec_metrics`
 * and `logsvc_metrics`: one JSON object per event, members in the order `event`, `fields`, `time`,
 * `host`, `index`, `source`, `sourcetype` (absent ones left out), objects concatenated with no
 * separator. Keys of `event` and `fields` objects are sorted, as Vector's ordered maps write them.
 */
import { Float, Timestamp, type Value } from '../../../lib/value.js';

/** The members of one envelope; `event` and `fields` are JSON text already. */
export interface HecEnvelope {
  /** JSON text of the `event` member (`"metric"`, or an object). */
  readonly event: string;
  /** JSON text of the `fields` object. */
  readonly fields: string;
  /** Epoch seconds with millisecond precision. */
  readonly time: number | undefined;
  readonly host: string | undefined;
  readonly index: string | undefined;
  readonly source: string | undefined;
  readonly sourcetype: string | undefined;
}

/** JSON text of `"metric"`, the `event` of every metric envelope. */
export const METRIC_EVENT = '"metric"';

const str = JSON.stringify;

/** One envelope as JSON text. */
export function writeEnvelope(e: HecEnvelope): string {
  let s = '{"event":' + e.event + ',"fields":' + e.fields;
  if (e.time !== undefined) s += ',"time":' + numberText(e.time);
  if (e.host !== undefined) s += ',"host":' + str(e.host);
  if (e.index !== undefined) s += ',"index":' + str(e.index);
  if (e.source !== undefined) s += ',"source":' + str(e.source);
  if (e.sourcetype !== undefined) s += ',"sourcetype":' + str(e.sourcetype);
  return s + '}';
}

/** The body of a batch: the envelopes back to back, no separator (HEC reads concatenated objects). */
export function hecBody(items: readonly { readonly text: string }[]): Buffer {
  let s = '';
  for (let i = 0; i < items.length; i++) s += items[i]!.text;
  return Buffer.from(s, 'utf8');
}

/** The timestamp (else now) as seconds, milliseconds kept, finer digits dropped. */
export function hecTime(ts: Timestamp | undefined, nowMs: number): number {
  return (ts ? ts.ms : Math.floor(nowMs)) / 1000;
}

/** A number as JSON: NaN and infinities have no JSON form and become `null`, as serde writes them. */
const numberText = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/**
 * JSON text of a value with every object's keys in sorted order; `skip` leaves out one key of the
 * top-level object (the timestamp a log carries in `time` instead). Timestamps become RFC 3339 text.
 */
export function sortedJson(v: Value, skip?: string): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return str(v);
    case 'number':
      return numberText(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof Float) return numberText(v.value);
  if (v instanceof Timestamp) return str(v.toString());
  if (v instanceof RegExp) return str(v.source);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i > 0 ? ',' : '') + sortedJson(v[i]!);
    return s + ']';
  }
  const keys = Object.keys(v).sort();
  let s = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const x = v[k];
    if (k === skip || x === undefined) continue;
    s += (first ? '' : ',') + str(k) + ':' + sortedJson(x);
    first = false;
  }
  return s + '}';
}
