/**
 * A remote-write request grouped into metric families as Vector groups it: the metadata declares
 * families and their types first; each series then joins the family of its name, or of its name
 * without `_bucket`, `_sum` or `_count` when that family exists, or else an untyped family of its
 * own name. Without metadata (Prometheus sends metadata in requests of its own) every series is
 * untyped and becomes a gauge. A metric declared twice with different types is refused when
 * `conflicts` is `reject`.
 */
import { type Family, type FamilyType, ParseError, type SampleLine, pushSample } from './text-parse.js';
import { METRIC_TYPE, type WireWriteRequest } from './remote-write-proto.js';

const TYPE_OF_NUMBER: Record<number, FamilyType> = {
  [METRIC_TYPE.counter]: 'counter',
  [METRIC_TYPE.gauge]: 'gauge',
  [METRIC_TYPE.histogram]: 'histogram',
  [METRIC_TYPE.gaugehistogram]: 'histogram',
  [METRIC_TYPE.summary]: 'summary',
};

/** Families of a request; throws {@link ParseError} for a series without `__name__` or a type conflict. */
export function groupWriteRequest(req: WireWriteRequest, conflicts: 'reject' | 'ignore'): Family[] {
  const families = new Map<string, Family>();
  for (const m of req.metadata) {
    const type = TYPE_OF_NUMBER[m.type] ?? 'untyped';
    const existing = families.get(m.metric_family_name);
    if (existing === undefined) families.set(m.metric_family_name, { name: m.metric_family_name, type, points: [] } as Family);
    else if (existing.type !== type && existing.type !== 'untyped' && conflicts === 'reject') throw new ParseError(`multiple metric kinds given for metric name \`${m.metric_family_name}\``);
  }
  for (const ts of req.timeseries) {
    let name: string | undefined;
    const labels: Record<string, string> = {};
    for (const l of ts.labels) {
      if (l.name === '__name__') name = l.value;
      else labels[l.name] = l.value;
    }
    if (name === undefined) throw new ParseError('request is missing metric name label');
    const family = familyOf(families, name);
    for (const s of ts.samples) {
      // each sample gets its own label object: the histogram and summary points take theirs apart
      const line: SampleLine = { name, labels: { ...labels }, value: s.value, timestamp: s.timestamp };
      if (!pushSample(family, line)) {
        families.set(name, { name, type: 'untyped', points: [] });
        pushSample(families.get(name)!, line);
      }
    }
  }
  return [...families.values()].filter((f) => f.points.length > 0);
}

function familyOf(families: Map<string, Family>, name: string): Family {
  const own = families.get(name);
  if (own !== undefined) return own;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const base = families.get(name.slice(0, -suffix.length));
    if (base !== undefined) return base;
  }
  const created: Family = { name, type: 'untyped', points: [] };
  families.set(name, created);
  return created;
}
