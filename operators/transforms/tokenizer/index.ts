/**
 * `tokenize`: splits a log field into white-space separated tokens and assigns them to named
 * fields, with optional type coercion (Vector's former `tokenizer`). Exactly one event out per
 * event in; metrics pass through untouched.
 */
import { type OperatorFunction, map } from 'rxjs';
import type { EventBatch } from '../../../lib/event.js';
import { type Path, formatPath, getPath, parsePath, removePath, setPath } from '../../../lib/path.js';
import { type Value, valueToString } from '../../../lib/value.js';
import { type Converter, ConversionError, compileConversion } from './convert.js';
import { splitTokens } from './split.js';

export { splitTokens, type Token } from './split.js';
export { CONVERSION_NAMES, ConversionError, type Converter, compileConversion } from './convert.js';

/** Hooks for the component's internal events (logging and counting); all optional. */
export interface TokenizerEvents {
  /** The source field is absent: the event passes unchanged. */
  fieldMissing?(field: string): void;
  /** A token did not convert: its field is left unset. */
  conversionFailed?(field: string, error: ConversionError): void;
}

/** Options of {@link tokenize}, the tokenizer's config in camelCase. */
export interface TokenizeOptions {
  /** The log field to split (a path); default `message`. */
  field?: string;
  /** Names (paths) given to the tokens in order; extra tokens are ignored. */
  fieldNames: readonly string[];
  /** Remove `field` after parsing; default true (as Vector documents). Never when a token is written to it. */
  dropField?: boolean;
  /** Field name -> type (`int`, `float`, `bool`, `timestamp|%F %T`, …). */
  types?: Readonly<Record<string, string>>;
  /** Zone of timestamps without an offset (undefined = UTC, `local`, IANA names). */
  timezone?: string;
  events?: TokenizerEvents;
}

/** The compiled form; exposed so a component can check options at build time. */
export interface CompiledTokenizer {
  readonly field: string;
  readonly fieldPath: Path;
  readonly targets: readonly Path[];
  readonly targetNames: readonly string[];
  readonly converters: readonly (Converter | undefined)[];
  readonly dropField: boolean;
  /** `types` keys that name no field of `fieldNames` (Vector warns about them). */
  readonly unusedTypes: readonly string[];
}

/** Parses and checks the options; throws Error for a bad path, type name, format or zone. */
export function compileTokenizer(options: TokenizeOptions): CompiledTokenizer {
  const field = options.field ?? 'message';
  const fieldPath = parsePath(field);
  const targets = options.fieldNames.map((n) => parsePath(n));
  const canonical = targets.map(formatPath);
  const converters: (Converter | undefined)[] = targets.map(() => undefined);
  const unusedTypes: string[] = [];
  for (const [name, type] of Object.entries(options.types ?? {})) {
    const idx = canonical.indexOf(formatPath(parsePath(name)));
    const conv = compileConversion(type, options.timezone);
    if (idx < 0) unusedTypes.push(name);
    // every target with this name gets it (a name listed twice is written twice)
    for (let i = 0; i < canonical.length; i++) if (canonical[i] === canonical[idx]) converters[i] = conv;
  }
  const fieldCanon = formatPath(fieldPath);
  const dropField = (options.dropField ?? true) && !canonical.includes(fieldCanon);
  return { field, fieldPath, targets, targetNames: options.fieldNames, converters, dropField, unusedTypes };
}

/** Tokenizes one event's fields in place; returns false when the source field is missing. */
export function tokenizeFields(t: CompiledTokenizer, fields: Record<string, Value>, events?: TokenizerEvents): boolean {
  const v = getPath(fields, t.fieldPath);
  if (v === undefined) {
    events?.fieldMissing?.(t.field);
    return false;
  }
  const text = typeof v === 'string' ? v : valueToString(v);
  const tokens = splitTokens(text, t.targets.length);
  if (t.dropField) removePath(fields, t.fieldPath);
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const conv = t.converters[i];
    if (tok === null || conv === undefined) {
      setPath(fields, t.targets[i]!, tok);
      continue;
    }
    try {
      setPath(fields, t.targets[i]!, conv(tok));
    } catch (err) {
      if (!(err instanceof ConversionError)) throw err;
      events?.conversionFailed?.(t.targetNames[i]!, err);
    }
  }
  return true;
}

/** The tokenizer as an operator: mutates each log event of the batch in place, emits the batch. */
export function tokenize(options: TokenizeOptions): OperatorFunction<EventBatch, EventBatch> {
  const t = compileTokenizer(options);
  const events = options.events;
  return map((batch: EventBatch) => {
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      if (e.type === 'log') tokenizeFields(t, e.fields, events);
    }
    return batch;
  });
}
