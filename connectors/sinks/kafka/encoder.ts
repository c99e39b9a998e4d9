/**
 * Events to Kafka records: the value is the event encoded alone; the key, headers and timestamp
 * come from a log event (Vector's `key_field`, `headers_key` and the log schema's timestamp); a
 * metric has no key or headers and carries its own timestamp.
 */
import { type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import { type Event, LogEvent, MetricEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath } from '../../../lib/path.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import { Timestamp, type Value, isObject, valueToString } from '../../../lib/value.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { KafkaSinkConfig } from './config.js';

/** One event as a record; `topic` is filled in by {@link KafkaEncoder.renderTopic}. */
export interface KafkaRecordOut extends Encoded {
  readonly value: Buffer;
  readonly recordKey: Buffer | undefined;
  readonly headers: Map<Buffer, Buffer> | undefined;
  readonly timestamp: bigint | undefined;
  topic: string;
}

export interface KafkaEncoder {
  /** Encodes one event; throws when the codec refuses it. */
  encode(e: Event): KafkaRecordOut;
  /** Renders the topic of one record; throws {@link TemplateError} when it cannot. */
  renderTopic(r: KafkaRecordOut): string;
}

/** A key or header value as bytes: text as it is, other scalars as their text; objects and arrays have none. */
function bytesOf(v: Value | undefined): Buffer | undefined {
  if (v === undefined || v === null || typeof v === 'object' && !(v instanceof Timestamp)) return undefined;
  return Buffer.from(typeof v === 'string' ? v : valueToString(v));
}

/** Compiles the encoder once per sink. */
export function createKafkaEncoder(config: Pick<KafkaSinkConfig, 'encoding' | 'topic' | 'key_field' | 'headers_key'>, logSchema?: LogSchemaKeys): KafkaEncoder {
  const serializer = createSerializer(config.encoding, logSchema);
  const topic: Template = compileTemplate(config.topic);
  const keyPath: Path | undefined = config.key_field === undefined ? undefined : parsePath(config.key_field);
  const headersPath: Path | undefined = config.headers_key === undefined ? undefined : parsePath(config.headers_key);
  const timestampPath = parsePath(logSchema?.timestamp_key ?? 'timestamp');
  return {
    encode(event) {
      const value = serializer.serialize(event);
      let recordKey: Buffer | undefined;
      let headers: Map<Buffer, Buffer> | undefined;
      let timestamp: bigint | undefined;
      let size = value.length;
      if (event instanceof LogEvent) {
        if (keyPath !== undefined) recordKey = bytesOf(getPath(event.fields, keyPath));
        if (headersPath !== undefined) {
          const h = getPath(event.fields, headersPath);
          if (isObject(h))
            for (const [name, v] of Object.entries(h)) {
              const b = bytesOf(v);
              if (b === undefined) continue;
              (headers ??= new Map()).set(Buffer.from(name), b);
              size += name.length + b.length;
            }
        }
        const ts = getPath(event.fields, timestampPath);
        if (ts instanceof Timestamp) timestamp = BigInt(ts.ms);
      } else if (event instanceof MetricEvent && event.timestamp !== undefined) timestamp = BigInt(event.timestamp.ms);
      if (recordKey !== undefined) size += recordKey.length;
      return { event, size, key: undefined, value, recordKey, headers, timestamp, topic: '' };
    },
    renderTopic(r) {
      const t = topic.render(r.event);
      if (t === undefined) throw new TemplateError(topic.text, `missing field(s) ${topic.missingFields(r.event).join(', ')}`);
      if (t === '') throw new TemplateError(topic.text, 'rendered to an empty topic');
      r.topic = t;
      return t;
    },
  };
}
