/**
 * Series identity of a metric: name, namespace and tags. Normalisers keep
 * their state per series and batches collapse metrics of one series.
 */
import type { MetricEvent, TagValue } from '../../../lib/event.js';

// separators no tag or name text can contain: keys of different series never collide
const SEP = '\u0000';
const VALUES = '\u0001';
const BARE = '\u0002';

const tagText = (v: TagValue): string => (v === null ? BARE : Array.isArray(v) ? v.map((x) => (x === null ? BARE : x)).join(VALUES) : v);

/** A string naming the series of `m`; tags in key order, every value of a multi-valued tag counts. */
export function seriesKey(m: Pick<MetricEvent, 'name' | 'namespace' | 'tags'>): string {
  let key = (m.namespace ?? '') + SEP + m.name;
  const tags = m.tags;
  if (!tags) return key;
  const keys = Object.keys(tags);
  if (keys.length > 1) keys.sort();
  for (let i = 0; i < keys.length; i++) key += SEP + keys[i]! + '=' + tagText(tags[keys[i]!]!);
  return key;
}

/** The single value of a tag: the last non-bare one; undefined for a bare tag. */
export function singleTagValue(v: TagValue): string | undefined {
  if (!Array.isArray(v)) return v ?? undefined;
  for (let i = v.length - 1; i >= 0; i--) if (v[i] !== null) return v[i]!;
  return undefined;
}
