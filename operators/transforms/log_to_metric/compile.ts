/**
 * One configured metric of `log_to_metric`, compiled once: the field path parsed, the name,
 * namespace and tag templates compiled (a static one renders its constant without touching the
 * event), so converting an event only reads and renders.
 */
import { type LogEvent, type MetricKind, type MetricValue, type TagValue, type Tags, MetricEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath } from '../../../lib/path.js';
import { type Template, compileTemplate } from '../../../lib/template.js';
import { type Timestamp, valueToString } from '../../../lib/value.js';
import { numberOf } from './number.js';

/** Metric types the transform makes; histogram and summary become one-sample distributions. */
export type LogMetricType = 'counter' | 'gauge' | 'set' | 'histogram' | 'summary';

/** A tag's configured value: a template, null for a bare tag, or a list of those (a multi-valued tag). */
export type TagSpec = string | null | readonly (string | null)[];

/** One entry of `metrics`, in camelCase. */
export interface MetricSpec {
  type: LogMetricType;
  /** Path of the log field the metric is made from. */
  field: string;
  /** Template of the metric name; default the field path as written. */
  name?: string;
  /** Template of the namespace; default none. */
  namespace?: string;
  /** Tag name -> template(s); names are literal. */
  tags?: Readonly<Record<string, TagSpec>>;
  /** Counter only: add the field's value instead of 1. */
  incrementByValue?: boolean;
  /** Counter only; default incremental (gauges are absolute, the others incremental). */
  kind?: MetricKind;
}

/** Why one metric of one event was not made. */
export type MetricFailure =
  | { reason: 'field_missing'; field: string }
  | { reason: 'field_null'; field: string }
  | { reason: 'not_a_number'; field: string; value: string }
  | { reason: 'template_failed'; option: string; missing: string[] };

/** Hook for a tag that did not render: the tag is left out, the metric still made. */
export type TagFailed = (tag: string, missing: string[]) => void;

/** A compiled metric: makes the metric of one event, or says why it cannot. */
export interface CompiledMetric {
  /**
   * `claimed`: the event's metadata already went to an earlier metric, so this one takes a copy
   * (its own claim on the acknowledgements); otherwise it takes the metadata itself. Nothing is
   * copied for a metric that fails.
   */
  convert(e: LogEvent, claimed: boolean, timestamp: Timestamp, tz: string | undefined, tagFailed: TagFailed | undefined): MetricEvent | MetricFailure;
}

type CompiledTag = { readonly name: string; readonly values: readonly (Template | null)[] };

function compileTags(tags: Readonly<Record<string, TagSpec>> | undefined): CompiledTag[] {
  if (!tags) return [];
  return Object.entries(tags).map(([name, spec]) => {
    const list = Array.isArray(spec) ? (spec as readonly (string | null)[]) : [spec as string | null];
    return { name, values: list.map((t) => (t === null ? null : compileTemplate(t))) };
  });
}

/** Renders the tags; a value that does not render is left out (reported), repeated values count once. */
function renderTags(compiled: readonly CompiledTag[], e: LogEvent, tz: string | undefined, tagFailed: TagFailed | undefined): Tags | undefined {
  if (compiled.length === 0) return undefined;
  let tags: Tags | undefined;
  for (let i = 0; i < compiled.length; i++) {
    const { name, values } = compiled[i]!;
    let out: (string | null)[] | undefined;
    for (let j = 0; j < values.length; j++) {
      const t = values[j]!;
      let value: string | null = null;
      if (t !== null) {
        const rendered = t.render(e, tz);
        if (rendered === undefined) {
          tagFailed?.(name, t.missingFields(e));
          continue;
        }
        value = rendered;
      }
      if (!out) out = [value];
      else if (!out.includes(value)) out.push(value);
    }
    if (!out) continue;
    // one value is stored single; several as a multi-valued tag (Vector's tag value set)
    const tag: TagValue = out.length === 1 ? out[0]! : out;
    (tags ??= {})[name] = tag;
  }
  return tags;
}

/** Compiles one metric; throws on a malformed path or template (a config error). */
export function compileMetric(spec: MetricSpec): CompiledMetric {
  const path: Path = parsePath(spec.field);
  // without `name`, the field path as written is the name, taken literally
  const name = spec.name === undefined ? undefined : compileTemplate(spec.name);
  const namespace = spec.namespace === undefined ? undefined : compileTemplate(spec.namespace);
  const tags = compileTags(spec.tags);
  const { type, field } = spec;
  const kind: MetricKind = type === 'counter' ? (spec.kind ?? 'incremental') : type === 'gauge' ? 'absolute' : 'incremental';
  const byValue = type === 'counter' ? (spec.incrementByValue ?? false) : type !== 'set';

  return {
    convert(e, claimed, timestamp, tz, tagFailed) {
      const raw = getPath(e.fields, path);
      if (raw === undefined) return { reason: 'field_missing', field };
      if (raw === null) return { reason: 'field_null', field };
      let number = 1;
      if (byValue) {
        const n = numberOf(raw);
        if (n === undefined) return { reason: 'not_a_number', field, value: valueToString(raw) };
        number = n;
      }
      const metricName = name === undefined ? field : name.render(e, tz);
      if (metricName === undefined) return { reason: 'template_failed', option: 'name', missing: name!.missingFields(e) };
      const ns = namespace?.render(e, tz);
      if (namespace && ns === undefined) return { reason: 'template_failed', option: 'namespace', missing: namespace.missingFields(e) };
      let value: MetricValue;
      switch (type) {
        case 'counter':
          value = { type: 'counter', value: number };
          break;
        case 'gauge':
          value = { type: 'gauge', value: number };
          break;
        case 'set':
          value = { type: 'set', values: [valueToString(raw)] };
          break;
        case 'histogram':
        case 'summary':
          value = { type: 'distribution', samples: [{ value: number, rate: 1 }], statistic: type };
          break;
      }
      const meta = claimed ? e.meta.clone() : e.meta;
      return new MetricEvent(metricName, kind, value, meta, ns, renderTags(tags, e, tz, tagFailed), timestamp);
    },
  };
}
