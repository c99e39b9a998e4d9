/**
 * Serializers (`encoding.codec`) and the `encoding` option group. One serializer is compiled per
 * sink at build time; per event it filters fields (only_fields / except_fields, without touching
 * the event), converts timestamps and produces the encoded text. Array wrapping (`[…]` for json
 * bodies) and framing belong to the sink and to framing.ts.
 */
import * as v from 'valibot';
import { pathItem } from '../config/options/checks.js';
import { encodingCommon } from '../config/options/encoding.js';
import type { Event, MetricEvent, TagValue } from '../event.js';
import { type Path, getPath, parsePath, setPath } from '../path.js';
import { type ObjectValue, type Value, isObject, valueToString } from '../value.js';
import { EncodeError, toGelf } from './gelf.js';
import { type TimestampFormat, prettyJsonText, valueToJSONText } from './json.js';
import { type Utf8Writer, writeJSONDefault } from './json-bytes.js';
import { encodeLogfmt } from './logfmt.js';
import { metricToText } from './metric-text.js';
import { nativeJsonLogText, nativeJsonMetricText } from './native-json.js';
import { encodeNative } from './native-proto.js';

export { EncodeError } from './gelf.js';

/** Every serializer weir has; each sink allows a subset. */
export const ENCODING_CODECS = ['json', 'ndjson', 'text', 'logfmt', 'raw_message', 'gelf', 'native_json', 'native'] as const;
/** One serializer name. */
export type EncodingCodec = (typeof ENCODING_CODECS)[number];

/** A validated `encoding` group. */
export interface EncodingConfig {
  readonly codec: EncodingCodec;
  readonly only_fields?: readonly string[] | undefined;
  readonly except_fields?: readonly string[] | undefined;
  readonly timestamp_format?: TimestampFormat | undefined;
  /** Metric tags in JSON: `single` (last non-null value; bare tags omitted) or `full` (arrays). */
  readonly metric_tag_values?: 'single' | 'full' | undefined;
  /** Options of the `json` codec (Vector's `encoding.json`). */
  readonly json?: { readonly pretty: boolean } | undefined;
}

/** `encoding.json`: options of the json codec; `pretty` indents each event over several lines. */
const jsonOptions = v.optional(v.strictObject({ pretty: v.optional(v.pipe(v.boolean(), v.description('Indent the JSON of each event over several lines.')), false) }));

/** The `encoding.metric_tag_values` option, for the components that offer it (labelstore, logsvc_metrics). */
export const metricTagValuesOption = { metric_tag_values: v.optional(v.picklist(['single', 'full']), 'single') };

/** The log-schema keys serializers read (global `log_schema`). */
export interface LogSchemaKeys {
  readonly message_key: string;
  readonly timestamp_key: string;
  readonly host_key: string;
  readonly source_type_key: string;
}
/** The default global log_schema keys, for callers without globals. */
export const DEFAULT_LOG_SCHEMA: LogSchemaKeys = { message_key: 'message', timestamp_key: 'timestamp', host_key: 'host', source_type_key: 'source_type' };

/**
 * The `encoding` option group: `codec` limited to what the component allows (the error lists the
 * allowed values), plus only_fields, except_fields, timestamp_format and the component's extras.
 * Without `dflt` the codec is required.
 */
export function encodingSchema<const C extends readonly [EncodingCodec, ...EncodingCodec[]], const E extends v.ObjectEntries = {}>(
  codecs: C,
  extra?: E,
  dflt?: C[number],
) {
  const codec = dflt === undefined ? v.picklist(codecs) : v.optional(v.picklist(codecs), dflt as never);
  return v.pipe(
    v.strictObject({
      codec: codec as v.PicklistSchema<C, undefined>,
      ...encodingCommon,
      // checked below: applies to the json codec only, as Vector ties `json` to it
      json: jsonOptions,
      ...((extra ?? {}) as E),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const { codec, json } = dataset.value as EncodingConfig;
      if (json !== undefined && codec !== 'json') addIssue({ message: `applies only when codec is "json" (codec is "${codec}")`, path: [pathItem(dataset.value, 'json')] });
      const { only_fields, except_fields } = dataset.value as EncodingConfig;
      if (!only_fields || !except_fields) return;
      const both = except_fields.filter((f) => only_fields.includes(f));
      if (both.length > 0)
        addIssue({
          message: `only_fields and except_fields must not name the same field (${both.join(', ')})`,
          path: [pathItem(dataset.value, 'except_fields')],
        });
    }),
  );
}

/** A compiled encoder of single events. */
export interface Serializer {
  readonly codec: EncodingCodec;
  /** MIME type of one encoded event (and of a body made of them, for text codecs). */
  readonly contentType: string;
  /** A binary codec (`native`): use {@link serialize}; its serializeText throws. */
  readonly isBinary: boolean;
  /** The encoded event; throws {@link EncodeError} when the codec's rules reject it (GELF). */
  serialize(e: Event): Buffer;
  /** Same as {@link serialize} as text (every codec but `native` is text); framing joins these. */
  serializeText(e: Event): string;
  /** The text of {@link serializeText} written as UTF-8 into `w` (JSON without building the string). */
  writeText(e: Event, w: Utf8Writer): void;
}

const CONTENT_TYPES: Record<EncodingCodec, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  text: 'text/plain',
  logfmt: 'text/plain',
  raw_message: 'text/plain',
  gelf: 'application/json',
  native_json: 'application/json',
  native: 'application/octet-stream',
};

/** Compiles an `encoding` group once; `logSchema` names the message and host fields. */
export function createSerializer(encoding: EncodingConfig, logSchema: LogSchemaKeys = DEFAULT_LOG_SCHEMA): Serializer {
  const format: TimestampFormat = encoding.timestamp_format ?? 'rfc3339';
  const project = compileProjection(encoding.only_fields, encoding.except_fields);
  const fieldsOf = project ?? ((f: ObjectValue) => f);
  const messageKey = logSchema.message_key;
  const messagePath = messageKey.includes('.') ? parsePath(messageKey) : undefined;
  const messageOf = (f: ObjectValue): Value | undefined => (messagePath ? getPath(f, messagePath) : f[messageKey]);
  const metricJSON = (m: MetricEvent) => JSON.stringify(metricToJSON(m, encoding.metric_tag_values ?? 'single'));
  let text: (e: Event) => string;
  let writeText: ((e: Event, w: Utf8Writer) => void) | undefined;
  switch (encoding.codec) {
    case 'json':
    case 'ndjson':
      text = (e) => (e.type === 'log' ? valueToJSONText(fieldsOf(e.fields), format) : metricJSON(e));
      if (encoding.codec === 'json' && encoding.json?.pretty) {
        const compact = text;
        text = (e) => prettyJsonText(compact(e));
      } else if (format === 'rfc3339') writeText = (e, w) => (e.type === 'log' ? writeJSONDefault(w, fieldsOf(e.fields)) : w.utf8(metricJSON(e)));
      break;
    case 'native_json':
      // Vector's shape: full tag sets whatever metric_tag_values says, floats that stay floats
      text = (e) => (e.type === 'log' ? nativeJsonLogText(fieldsOf(e.fields), format) : nativeJsonMetricText(e));
      break;
    case 'native':
      return {
        codec: 'native',
        contentType: CONTENT_TYPES.native,
        isBinary: true,
        serialize: (e) => encodeNative(e, e.type === 'log' ? fieldsOf(e.fields) : undefined, format),
        serializeText: () => {
          throw new EncodeError('native is a binary codec');
        },
        writeText: () => {
          throw new EncodeError('native is a binary codec');
        },
      };
    case 'text':
      text = (e) => {
        if (e.type === 'metric') return metricToText(e);
        const m = messageOf(fieldsOf(e.fields));
        return m === undefined ? '' : valueToString(m);
      };
      break;
    case 'raw_message':
      text = (e) => {
        if (e.type === 'metric') throw new EncodeError('raw_message encodes log events only');
        const m = messageOf(fieldsOf(e.fields));
        return m === undefined ? '' : valueToString(m);
      };
      break;
    case 'logfmt':
      text = (e) => encodeLogfmt(e.type === 'log' ? fieldsOf(e.fields) : (metricToJSON(e, encoding.metric_tag_values ?? 'single') as ObjectValue), format);
      break;
    case 'gelf':
      text = (e) => {
        if (e.type === 'metric') throw new EncodeError('gelf encodes log events only');
        return JSON.stringify(toGelf(fieldsOf(e.fields), logSchema));
      };
      break;
  }
  return {
    codec: encoding.codec,
    contentType: CONTENT_TYPES[encoding.codec],
    isBinary: false,
    serializeText: text,
    writeText: writeText ?? ((e, w) => w.utf8(text(e))),
    serialize: (e) => Buffer.from(text(e), 'utf8'),
  };
}

/**
 * only_fields keeps the listed paths (in list order); except_fields then removes paths, copying
 * the objects on the way so the event itself is never changed (it may be retried or inspected).
 */
function compileProjection(only?: readonly string[], except?: readonly string[]): ((f: ObjectValue) => ObjectValue) | undefined {
  const keep = only && only.length > 0 ? only.map(parsePath) : undefined;
  const drop = except && except.length > 0 ? except.map(parsePath) : undefined;
  if (!keep && !drop) return undefined;
  return (fields) => {
    let out = fields;
    if (keep) {
      out = {};
      for (const p of keep) {
        const val = getPath(fields, p);
        if (val !== undefined) setPath(out, p, val);
      }
    }
    if (drop) for (const p of drop) out = removeCopy(out, p, out !== fields);
    return out;
  };
}

/** Removes a path from a copy of `root` (only the containers on the path are copied). */
function removeCopy(root: ObjectValue, path: Path, owned: boolean): ObjectValue {
  if (getPath(root, path) === undefined) return root;
  const copy = (c: Value): Value => (Array.isArray(c) ? c.slice() : { ...(c as ObjectValue) });
  const top = owned ? root : (copy(root) as ObjectValue);
  let cur: Value = top;
  for (let i = 0; i < path.length - 1; i++) {
    const s = path[i]!;
    const holder = cur as Record<string | number, Value>;
    const key = typeof s === 'number' && s < 0 ? (cur as Value[]).length + s : s;
    const next = copy(holder[key]!);
    holder[key] = next;
    cur = next;
  }
  const last = path[path.length - 1]!;
  if (typeof last === 'number') {
    const arr = cur as Value[];
    arr.splice(last < 0 ? arr.length + last : last, 1);
  } else if (isObject(cur)) {
    delete cur[last];
  }
  return top;
}

/** Vector's metric JSON with tag values shaped per `metric_tag_values`. */
function metricToJSON(m: MetricEvent, mode: 'single' | 'full'): Record<string, unknown> {
  const out = m.toJSON();
  if (!m.tags) return out;
  const tags: Record<string, string | (string | null)[]> = {};
  for (const k in m.tags) {
    const t: TagValue = m.tags[k]!;
    if (mode === 'full') tags[k] = Array.isArray(t) ? t : [t];
    else {
      const last = Array.isArray(t) ? lastNonNull(t) : t;
      if (last !== null) tags[k] = last;
    }
  }
  if (Object.keys(tags).length > 0) out.tags = tags;
  else delete out.tags;
  return out;
}

function lastNonNull(values: readonly (string | null)[]): string | null {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return values[i]!;
  return null;
}
