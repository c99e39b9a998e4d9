/**
 * Templates: option strings with `{{ field.path }}` references and strftime items (`%Y-%m-%d`)
 * rendered per event (key_field, index names, object keys). Compiled once at build time; a static
 * template renders its constant text without touching the event.
 */
import type { Event } from './event.js';
import { type Path, PathSyntaxError, getPath, parsePath } from './path.js';
import { type CompiledFormat, FormatError, compileFormat, hasSpecifiers } from './time/strftime.js';
import { Timestamp, type Value, valueToString } from './value.js';

/** Thrown at build time for a malformed template (unclosed `{{`, empty or invalid path, bad `%`). */
export class TemplateError extends Error {
  constructor(
    readonly template: string,
    readonly reason: string,
  ) {
    super(`invalid template "${template}": ${reason}`);
    this.name = 'TemplateError';
  }
}

/** A compiled template. */
export interface Template {
  /** The text as configured. */
  readonly text: string;
  /** False when the text has no field reference and no strftime item. */
  readonly isDynamic: boolean;
  /** The referenced field paths, as written (trimmed). */
  readonly fields: string[];
  /** Renders for one event; undefined when a referenced field is missing. `tz` applies to `%` items. */
  render(e: Event, tz?: string): string | undefined;
  /** The referenced fields absent from `e` (for the error message after a failed render). */
  missingFields(e: Event): string[];
}

type Part =
  | { readonly kind: 'lit'; readonly text: string }
  | { readonly kind: 'time'; readonly format: CompiledFormat }
  | { readonly kind: 'field'; readonly name: string; readonly path: Path; readonly meta: boolean };

function literalPart(template: string, text: string): Part {
  try {
    const format = compileFormat(text);
    if (hasSpecifiers(text)) return { kind: 'time', format };
    // `%%`, `%n`, `%t` still collapse to their characters
    return { kind: 'lit', text: format.format(new Timestamp(0)) };
  } catch (err) {
    if (err instanceof FormatError) throw new TemplateError(template, `unsupported strftime specifier in "${text}"`);
    throw err;
  }
}

function parseParts(text: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) {
      parts.push(literalPart(text, text.slice(i)));
      break;
    }
    if (open > i) parts.push(literalPart(text, text.slice(i, open)));
    const close = text.indexOf('}}', open + 2);
    if (close < 0) throw new TemplateError(text, `unclosed "{{" at ${open}`);
    const inner = text.slice(open + 2, close).trim();
    if (inner === '') throw new TemplateError(text, `empty field reference at ${open}`);
    const meta = inner.startsWith('%');
    const pathText = meta ? inner.slice(1) || '.' : inner;
    let path: Path;
    try {
      path = parsePath(pathText);
    } catch (err) {
      if (err instanceof PathSyntaxError) throw new TemplateError(text, `invalid field path "${inner}": ${err.message}`);
      throw err;
    }
    parts.push({ kind: 'field', name: inner, path, meta });
    i = close + 2;
  }
  // adjacent literals merge so rendering concatenates fewer pieces
  const merged: Part[] = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (p.kind === 'lit' && last?.kind === 'lit') merged[merged.length - 1] = { kind: 'lit', text: last.text + p.text };
    else if (p.kind !== 'lit' || p.text !== '') merged.push(p);
  }
  return merged;
}

/** Metric fields a template can name (Vector: name, namespace, tags.<key>; the key may hold dots). */
function metricField(e: Event & { type: 'metric' }, name: string): Value | undefined {
  const key = name.startsWith('.') ? name.slice(1) : name;
  if (key === 'name') return e.name;
  if (key === 'namespace') return e.namespace;
  if (key === 'timestamp') return e.timestamp;
  if (key.startsWith('tags.')) {
    const tag = e.tags?.[key.slice(5)];
    if (tag === undefined || tag === null) return undefined;
    if (Array.isArray(tag)) {
      // a multi-valued tag renders its last value, as sinks with single tag values do
      for (let i = tag.length - 1; i >= 0; i--) if (tag[i] !== null) return tag[i]!;
      return undefined;
    }
    return tag;
  }
  return undefined;
}

function lookup(e: Event, part: Part & { kind: 'field' }): Value | undefined {
  if (part.meta) return e.meta.value ? getPath(e.meta.value, part.path) : undefined;
  if (e.type === 'log') return getPath(e.fields, part.path);
  return metricField(e, part.name);
}

/** The instant `%` items render: the event's timestamp, or now when it has none. */
function eventTime(e: Event): Timestamp {
  if (e.type === 'log') {
    const t = e.fields.timestamp;
    return t instanceof Timestamp ? t : Timestamp.now();
  }
  return e.timestamp ?? Timestamp.now();
}

/** Compiles a template; throws {@link TemplateError} when malformed. */
export function compileTemplate(text: string): Template {
  const parts = parseParts(text);
  const fields = parts.filter((p): p is Part & { kind: 'field' } => p.kind === 'field').map((p) => p.name);
  const missingFields = (e: Event): string[] =>
    parts.filter((p): p is Part & { kind: 'field' } => p.kind === 'field' && lookup(e, p) === undefined).map((p) => p.name);

  if (parts.length === 0 || (parts.length === 1 && parts[0]!.kind === 'lit')) {
    const constant = parts.length === 0 ? '' : (parts[0] as { text: string }).text;
    return { text, isDynamic: false, fields, render: () => constant, missingFields };
  }
  const single = parts.length === 1 && parts[0]!.kind === 'field' ? parts[0] : undefined;
  if (single) {
    return {
      text,
      isDynamic: true,
      fields,
      render(e) {
        const v = lookup(e, single);
        return v === undefined ? undefined : valueToString(v);
      },
      missingFields,
    };
  }
  return {
    text,
    isDynamic: true,
    fields,
    render(e, tz) {
      let out = '';
      let ts: Timestamp | undefined;
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]!;
        if (p.kind === 'lit') out += p.text;
        else if (p.kind === 'time') out += p.format.format((ts ??= eventTime(e)), tz);
        else {
          const v = lookup(e, p);
          if (v === undefined) return undefined;
          out += valueToString(v);
        }
      }
      return out;
    },
    missingFields,
  };
}
