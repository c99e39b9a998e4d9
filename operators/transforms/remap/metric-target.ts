/**
 * Metric events as remap targets, as in Vector: the program sees `.name`, `.namespace`, `.tags`,
 * `.kind`, `.timestamp`, `.type` and the value under its type (`.counter.value`); it may change the
 * first five, while `.type` and the value are read-only.
 */
import type { MetricEvent, MetricValue, TagValue, Tags } from '../../../lib/event.js';
import { type ObjectValue, type Value, Float, Timestamp, isObject, valueEquals } from '../../../lib/value.js';

const WRITABLE = ['name', 'namespace', 'tags', 'kind', 'timestamp'];

/** Counts stay integers (u64 in Vector's model); every other number of a value is a float. */
function valueBody(v: MetricValue): ObjectValue {
  const conv = (x: unknown, key: string): Value => {
    if (typeof x === 'number') return key === 'count' ? x : new Float(x);
    if (Array.isArray(x)) return x.map((e) => conv(e, key));
    if (x !== null && typeof x === 'object') {
      const o: ObjectValue = {};
      for (const [k, e] of Object.entries(x)) o[k] = conv(e, k);
      return o;
    }
    return x as Value;
  };
  const { type: _type, ...body } = v;
  return conv(body, '') as ObjectValue;
}

/**
 * How a program sees metric tags (the remap option `metric_tag_values`): `single` the last of
 * several values, `full` every tag as an array, `auto` single values as strings and several as arrays.
 */
export type TagMode = 'single' | 'full' | 'auto';

/** A tag as the program sees it in `mode`. */
function tagView(t: TagValue, mode: TagMode): Value {
  if (mode === 'full') return Array.isArray(t) ? t : [t];
  if (mode === 'auto') return Array.isArray(t) && t.length === 1 ? t[0]! : t;
  return Array.isArray(t) ? (t.length > 0 ? t[t.length - 1]! : null) : t;
}

/** The object a program runs on for a metric. */
export function metricToValue(m: MetricEvent, mode: TagMode = 'single'): ObjectValue {
  const o: ObjectValue = { name: m.name };
  if (m.namespace !== undefined) o.namespace = m.namespace;
  const tags: ObjectValue = {};
  if (m.tags) for (const k in m.tags) tags[k] = tagView(m.tags[k]!, mode);
  o.tags = tags;
  if (m.timestamp) o.timestamp = m.timestamp;
  o.kind = m.kind;
  o.type = m.value.type;
  o[m.value.type] = valueBody(m.value);
  return o;
}

/**
 * Writes a program's result back into the metric; returns the error when the result is not a
 * valid metric (wrong kinds, unknown fields, a changed read-only field) and leaves `m` unchanged then.
 */
export function applyMetricValue(m: MetricEvent, root: Value, mode: TagMode = 'single'): string | undefined {
  if (!isObject(root)) return 'the root of a metric event must be an object';
  for (const k in root) {
    if (WRITABLE.includes(k)) continue;
    if (k === 'type') {
      if (root.type !== m.value.type) return '.type of a metric event is read-only';
      continue;
    }
    if (k === m.value.type) {
      if (!valueEquals(root[k]!, valueBody(m.value))) return `.${k} (the metric value) is read-only`;
      continue;
    }
    return `invalid metric field .${k}: expected one of .name, .namespace, .tags, .kind, .timestamp`;
  }
  const { name, namespace, tags, kind, timestamp } = root;
  if (typeof name !== 'string') return '.name of a metric event must be a string';
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') return '.namespace of a metric event must be a string or null';
  if (kind !== 'absolute' && kind !== 'incremental') return '.kind of a metric event must be "absolute" or "incremental"';
  if (timestamp !== undefined && timestamp !== null && !(timestamp instanceof Timestamp)) return '.timestamp of a metric event must be a timestamp or null';
  let newTags: Tags | undefined;
  if (tags !== undefined && tags !== null) {
    if (!isObject(tags)) return '.tags of a metric event must be an object';
    newTags = {};
    for (const k in tags) {
      const t = tags[k]!;
      const old = m.tags?.[k];
      // an untouched tag keeps its values and its shape, whatever the view showed
      if (old !== undefined && valueEquals(t, tagView(old, mode))) newTags[k] = old;
      else if (typeof t === 'string' || t === null) newTags[k] = t;
      else if (Array.isArray(t) && t.every((x) => typeof x === 'string' || x === null)) newTags[k] = t as (string | null)[];
      else return `.tags.${k} of a metric event must be a string`;
    }
  }
  m.name = name;
  m.namespace = namespace ?? undefined;
  m.kind = kind;
  m.timestamp = timestamp ?? undefined;
  m.tags = newTags && (Object.keys(newTags).length > 0 || m.tags !== undefined) ? newTags : undefined;
  return undefined;
}
