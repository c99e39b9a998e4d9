/**
 * The one-line text form of a metric (the `text` codec for metric events):
 * `[<timestamp> ]<namespace>_<name>{tag="v",…} <= | +> <value>`, `=` for absolute, `+` for
 * incremental values; distributions and aggregates list `rate@value` / `count@upper_limit` pairs.
 */
import type { MetricEvent, TagValue } from '../event.js';
import { formatFloat } from '../value.js';

/** Renders a metric as one line of text. */
export function metricToText(m: MetricEvent): string {
  let out = m.timestamp ? m.timestamp.toString() + ' ' : '';
  out += m.namespace !== undefined ? `${m.namespace}_${m.name}` : m.name;
  if (m.tags) {
    const keys = Object.keys(m.tags).sort();
    if (keys.length > 0) out += '{' + keys.map((k) => tagText(k, m.tags![k]!)).join(',') + '}';
  }
  out += m.kind === 'absolute' ? ' = ' : ' + ';
  const v = m.value;
  switch (v.type) {
    case 'counter':
    case 'gauge':
      return out + formatFloat(v.value);
    case 'set':
      return out + v.values.map(word).join(' ');
    case 'distribution':
      return out + v.statistic + ' ' + v.samples.map((s) => `${s.rate}@${formatFloat(s.value)}`).join(' ');
    case 'aggregated_histogram':
      return out + `count=${v.count} sum=${formatFloat(v.sum)} ` + v.buckets.map((b) => `${b.count}@${formatFloat(b.upper_limit)}`).join(' ');
    case 'aggregated_summary':
      return out + `count=${v.count} sum=${formatFloat(v.sum)} ` + v.quantiles.map((q) => `${formatFloat(q.quantile)}@${formatFloat(q.value)}`).join(' ');
  }
}

function tagText(k: string, v: TagValue): string {
  const vals = Array.isArray(v) ? v : [v];
  return vals.map((x) => (x === null ? k : `${k}=${JSON.stringify(x)}`)).join(',');
}

function word(s: string): string {
  return /^[\w.:-]+$/.test(s) ? s : JSON.stringify(s);
}
