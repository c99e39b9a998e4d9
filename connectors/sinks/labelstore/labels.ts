/**
 * Stream labels of the `labelstore` sink (as Vector's `loki` sink builds them): label keys and
 * values are templates compiled once; a key ending in `*` expands an object into one label per
 * member. The label set of an event is its stream: the sorted `{name="value", …}` text is the
 * stream's identity in batches, in the protobuf body and in the out-of-order state.
 */
import type { LogEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath } from '../../../lib/path.js';
import { type Template, compileTemplate } from '../../../lib/template.js';
import { type Value, isObject, valueToString } from '../../../lib/value.js';
import { LABEL_NAME } from './config.js';

/** A label set: sorted pairs and their text. */
export interface Stream {
  /** `{a="1", b="2"}`: pairs sorted by name, values quoted with escapes. */
  readonly text: string;
  /** Sorted by name. */
  readonly pairs: readonly (readonly [string, string])[];
}

/** What the sink uses when no label renders for an event (the store refuses a stream without labels). */
export const FALLBACK_LABEL: readonly [string, string] = ['agent', 'weir'];

interface Rule {
  readonly key: Template;
  readonly value: Template;
  /** The field a value template consists of alone (`{{ a.b }}`): read directly when expanding. */
  readonly valuePath: Path | undefined;
}

/** Compiled label rules of one sink. */
export interface Labeler {
  /** The event's stream; `unlabeled` is true when no rule rendered and {@link FALLBACK_LABEL} stands in. */
  streamOf(e: LogEvent): { stream: Stream; unlabeled: boolean };
  /** Fields the value templates read (`remove_label_fields` leaves them out of the line). */
  readonly valueFields: readonly string[];
}

// in unicode mode a paired surrogate is one code point, so these match only lone halves
const LONE_SURROGATE = /\p{Surrogate}/u;
const LONE_SURROGATES = /\p{Surrogate}/gu;

/**
 * Quotes a label value as the store's label parser reads it (Go string syntax: `"`, `\` and
 * control characters escaped). JSON string syntax is a subset of it; lone surrogates, which Go
 * refuses as `\u` escapes, become U+FFFD first.
 */
export const quoteLabelValue = (s: string): string => JSON.stringify(LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\uFFFD') : s);

/** A label name made from an object member under a `prefix*` key: characters outside [A-Za-z0-9_] become `_`, lower case. */
export function slugLabelName(name: string): string {
  const slug = name.replace(/[^0-9A-Za-z_]/g, '_').toLowerCase();
  // a name may not start with a digit: an empty prefix and a member "1a" would give one
  return /^[0-9]/.test(slug) ? `_${slug}` : slug;
}

/** The label set text of sorted pairs. */
export function streamText(pairs: readonly (readonly [string, string])[]): string {
  let s = '{';
  for (let i = 0; i < pairs.length; i++) s += (i > 0 ? ', ' : '') + pairs[i]![0] + '=' + quoteLabelValue(pairs[i]![1]);
  return s + '}';
}

const byName = (a: readonly [string, string], b: readonly [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** The single field a template consists of (`{{ a.b }}`, not metadata), if it is nothing else. */
function soleField(t: Template): Path | undefined {
  if (t.fields.length !== 1 || t.fields[0]!.startsWith('%')) return undefined;
  return /^\{\{[^{}]*\}\}$/.test(t.text.trim()) ? parsePath(t.fields[0]!) : undefined;
}

/** The object a `*` label expands: the field itself, or the rendered text read as a JSON object. */
function expansionSource(rule: Rule, e: LogEvent): Record<string, unknown> | undefined {
  if (rule.valuePath) {
    const v = getPath(e.fields, rule.valuePath);
    return isObject(v) ? v : undefined;
  }
  const text = rule.value.render(e);
  if (text === undefined || !text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const memberText = (v: unknown): string => (typeof v === 'string' ? v : valueToString(v as Value));

/**
 * Compiles the `labels` option. Rules apply in config order and a later rule wins a name both
 * render. A rule whose key or value does not render is skipped for that event, as is a templated
 * key that renders to something other than a label name.
 */
export function compileLabels(labels: Readonly<Record<string, string>>): Labeler {
  const rules: Rule[] = Object.entries(labels).map(([k, val]) => {
    const value = compileTemplate(val);
    return { key: compileTemplate(k), value, valuePath: soleField(value) };
  });
  const valueFields = [...new Set(rules.flatMap((r) => r.value.fields.filter((f) => !f.startsWith('%'))))];
  const fallback: Stream = { text: streamText([FALLBACK_LABEL]), pairs: [FALLBACK_LABEL] };

  // every template static and nothing to expand: one stream for every event, built once
  if (rules.every((r) => !r.key.isDynamic && !r.value.isDynamic && !r.key.text.endsWith('*'))) {
    const pairs = rules.map((r) => [r.key.text, r.value.text] as const).sort(byName);
    const stream: Stream = pairs.length > 0 ? { text: streamText(pairs), pairs } : fallback;
    const result = { stream, unlabeled: pairs.length === 0 };
    return { streamOf: () => result, valueFields };
  }

  /** Builds the label set from scratch: expansions, name checks, later rules winning. */
  const build = (e: LogEvent): { stream: Stream; unlabeled: boolean } => {
    const named = new Map<string, string>();
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      const key = rule.key.render(e);
      if (key === undefined) continue;
      if (key.endsWith('*')) {
        const members = expansionSource(rule, e);
        if (!members) continue;
        const prefix = key.slice(0, -1);
        for (const m in members) {
          const name = slugLabelName(prefix + m);
          if (LABEL_NAME.test(name)) named.set(name, memberText(members[m]));
        }
        continue;
      }
      if (!LABEL_NAME.test(key)) continue;
      const value = rule.value.render(e);
      if (value !== undefined) named.set(key, value);
    }
    if (named.size === 0) return { stream: fallback, unlabeled: true };
    const pairs = [...named].sort(byName);
    return { stream: { text: streamText(pairs), pairs }, unlabeled: false };
  };

  // an expansion's members are open-ended: such rule sets build every event's set
  if (rules.some((r) => !r.key.isDynamic && r.key.text.endsWith('*'))) return { streamOf: build, valueFields };

  /**
   * Label sets seen, by what the dynamic templates rendered: an event of a known stream costs a
   * few renders and one lookup. Bounded, as label values may have unbounded cardinality.
   */
  const seen = new Map<string, { stream: Stream; unlabeled: boolean }>();
  const dynamic = rules.filter((r) => r.key.isDynamic || r.value.isDynamic);
  const streamOf = (e: LogEvent) => {
    let sig = '';
    for (let i = 0; i < dynamic.length; i++) {
      const rule = dynamic[i]!;
      const key = rule.key.isDynamic ? rule.key.render(e) : rule.key.text;
      // a templated key that renders to an expansion is resolved the long way
      if (key !== undefined && key.endsWith('*')) return build(e);
      const value = rule.value.render(e);
      sig += (key ?? '\u0003') + '\u0001' + (value ?? '\u0003') + '\u0002';
    }
    let known = seen.get(sig);
    if (!known) {
      known = build(e);
      if (seen.size >= 10_000) seen.clear();
      seen.set(sig, known);
    }
    return known;
  };
  return { streamOf, valueFields };
}
