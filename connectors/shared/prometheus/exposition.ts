/**
 * The text exposition format (0.0.4) of absolute metrics, as Vector's exporter writes it: families
 * sorted by full name, each with `# HELP <name> <metric name>` and `# TYPE`; labels sorted by their
 * rendered `name="value"` text; the timestamp in ms when the metric has one and it is kept.
 * Label values escape `\`, `"` and the line feed (Vector escapes the first two only, which breaks
 * the line on a value holding a line feed).
 */
import type { MetricEvent, Tags } from '../../../lib/event.js';
import { singleTagValue } from '../metrics/series.js';
import { type PromType, forEachSample, fullName, promTypeOf } from './samples.js';

/** How metrics are rendered. */
export interface ExpositionOptions {
  readonly defaultNamespace: string | undefined;
  readonly buckets: readonly number[];
  readonly quantiles: readonly number[];
  /** Leave timestamps out. */
  readonly suppressTimestamp?: boolean;
}

/** What rendering reads of a metric. */
export type RenderableMetric = Pick<MetricEvent, 'kind' | 'name' | 'namespace' | 'tags' | 'value' | 'timestamp'>;

/** Renders absolute metrics (others are skipped, as in Vector). */
export function renderExposition(metrics: Iterable<RenderableMetric>, opts: ExpositionOptions): string {
  const families = new Map<string, string[]>();
  for (const m of metrics) {
    if (m.kind !== 'absolute') continue;
    const name = fullName(m, opts.defaultNamespace);
    let lines = families.get(name);
    if (lines === undefined) {
      lines = [`# HELP ${name} ${m.name}\n# TYPE ${name} ${promTypeOf(m.value) satisfies PromType}\n`];
      families.set(name, lines);
    }
    const ts = opts.suppressTimestamp || m.timestamp === undefined ? '' : ` ${m.timestamp.ms}`;
    const labels = renderedLabels(m.tags);
    const out = lines;
    forEachSample(m.value, opts.buckets, opts.quantiles, (suffix, value, extraName, extraValue) => {
      out.push(`${name}${suffix}${labelBlock(labels, extraName, extraValue)} ${formatValue(value)}${ts}\n`);
    });
  }
  const names = [...families.keys()].sort();
  let text = '';
  for (const n of names) text += families.get(n)!.join('');
  return text;
}

/** A sample value: Go's float syntax reads JavaScript's number text; infinities and NaN as Prometheus writes them. */
export function formatValue(v: number): string {
  if (Number.isFinite(v)) return String(v);
  return Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
}

/** `name="value"` of each tag with a value, sorted. */
function renderedLabels(tags: Tags | undefined): string[] {
  if (tags === undefined) return [];
  const parts: string[] = [];
  for (const k in tags) {
    const v = singleTagValue(tags[k]!);
    if (v !== undefined) parts.push(label(k, v));
  }
  return parts.sort();
}

function labelBlock(labels: string[], extraName: string | undefined, extraValue: string | undefined): string {
  if (extraName === undefined) return labels.length === 0 ? '' : `{${labels.join(',')}}`;
  if (labels.length === 0) return `{${label(extraName, extraValue!)}}`;
  return `{${[...labels, label(extraName, extraValue!)].sort().join(',')}}`;
}

const ESCAPES = /[\\"\n]/g;
const escapeOne = (c: string) => (c === '\n' ? '\\n' : `\\${c}`);

/** `name="value"` with the value escaped. */
export const label = (name: string, value: string): string => `${name}="${value.replace(ESCAPES, escapeOne)}"`;
