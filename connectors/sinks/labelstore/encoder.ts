/**
 * Events to log entries for the `labelstore` sink (in the order Vector's `loki` sink works): the
 * tenant, the stream (label set), the timestamp in nanoseconds and the line, encoded once when
 * the event enters the sink. The event itself is never changed: `remove_label_fields` and
 * `remove_timestamp` leave fields out of the line the way `except_fields` does.
 */
import { createAvroSerializer } from '../../../lib/codecs/avro.js';
import { DEFAULT_LOG_SCHEMA, EncodeError, type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import { getPath, parsePath } from '../../../lib/path.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import { Timestamp } from '../../../lib/value.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { LabelstoreConfig } from './config.js';
import { type Stream, compileLabels } from './labels.js';

/** One log entry. `ms` and `ns` (sub-millisecond nanoseconds) change only under `rewrite_timestamp`. */
export interface Entry extends Encoded {
  readonly stream: Stream;
  /** The rendered tenant ('' = none), or why it did not render (the event is then rejected). */
  readonly tenant: string | TemplateError;
  ms: number;
  ns: number;
  readonly line: string;
}

export interface LabelstoreEncoder {
  /** Throws {@link EncodeError} for an event the codec cannot take (and for metrics). */
  encode(e: Event): Entry;
}

/** Counters the encoder reports to (events.ts). */
export interface EncoderEvents {
  unlabeled(): void;
}

/** Compiles the encoder once per sink; `now` gives the time of events without a timestamp (scheduler ms). */
export function createLabelstoreEncoder(
  config: Pick<LabelstoreConfig, 'labels' | 'tenant_id' | 'encoding' | 'remove_label_fields' | 'remove_timestamp'>,
  now: () => number,
  events: EncoderEvents,
  logSchema: LogSchemaKeys = DEFAULT_LOG_SCHEMA,
): LabelstoreEncoder {
  const labeler = compileLabels(config.labels);
  const tenant: Template | undefined = config.tenant_id === undefined ? undefined : compileTemplate(config.tenant_id);
  const timestampKey = logSchema.timestamp_key;
  const timestampPath = parsePath(timestampKey);

  // fields read by label values, and the timestamp, stay out of the line
  let removed = [...(config.remove_label_fields ? labeler.valueFields : []), ...(config.remove_timestamp ? [timestampKey] : [])];
  // text and raw_message write the message alone: leaving out other fields would only copy objects
  if (config.encoding.codec === 'text' || config.encoding.codec === 'raw_message') removed = removed.filter((f) => f === logSchema.message_key);
  const except = [...new Set([...(config.encoding.except_fields ?? []), ...removed])];
  const encoding = { ...config.encoding, except_fields: except.length > 0 ? except : undefined };
  let lineOf: (e: Event) => string;
  if (encoding.codec === 'avro') {
    const avro = createAvroSerializer({ ...encoding, schema: encoding.avro!.schema }, logSchema);
    // a line is text: binary data is read as UTF-8, invalid sequences replaced
    lineOf = (e) => avro(e).toString('utf8');
  } else {
    const serializer = createSerializer({ ...encoding, codec: encoding.codec }, logSchema);
    lineOf = serializer.isBinary ? (e) => serializer.serialize(e).toString('utf8') : serializer.serializeText;
  }

  const tenantOf = (e: Event): string | TemplateError => {
    if (!tenant) return '';
    const t = tenant.render(e);
    return t !== undefined ? t : new TemplateError(tenant.text, `missing field(s) ${tenant.missingFields(e).join(', ')}`);
  };

  return {
    encode(e) {
      if (e.type !== 'log') throw new EncodeError('labelstore sends log events only');
      const { stream, unlabeled } = labeler.streamOf(e);
      if (unlabeled) events.unlabeled();
      const ts = getPath(e.fields, timestampPath);
      let ms: number;
      let ns = 0;
      if (ts instanceof Timestamp) {
        ms = ts.ms;
        ns = ts.ns;
      } else ms = Math.floor(now()); // without a timestamp, the time it enters the sink
      const line = lineOf(e);
      return { event: e, size: Buffer.byteLength(line, 'utf8'), key: undefined, stream, tenant: tenantOf(e), ms, ns, line };
    },
  };
}
