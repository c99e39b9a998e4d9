/**
 * Events to Kafka records: the value is the event encoded alone; the key, headers and timestamp
 * come from a log event (Vector's `key_field`, `headers_key` and the log schema's timestamp); a
 * metric has no key or headers and carries its own timestamp. A pipeline worker (docs/threads.md)
 * encodes the value and reads the key, headers, timestamp and topic where the event is; the main
 * thread makes the record from what it sent.
 */
import type { WorkerSinkEncoder } from '../../../lib/component.js';
import { type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import type { GlobalOptions } from '../../../lib/config/global.js';
import { EncodedLogEvent, type Event, LogEvent, MetricEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath } from '../../../lib/path.js';
import { TemplateError, compileTemplate } from '../../../lib/template.js';
import { Timestamp, type Value, isObject, valueToString } from '../../../lib/value.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { KafkaSinkConfig } from './config.js';

/** One event as a record; its topic is the skeleton's partition `key`. */
export interface KafkaRecordOut extends Encoded {
  readonly value: Buffer;
  readonly recordKey: Buffer | undefined;
  readonly headers: Map<Buffer, Buffer> | undefined;
  readonly timestamp: bigint | undefined;
}

export interface KafkaEncoder {
  /** Encodes one event; throws when the codec refuses it. */
  encode(e: Event): KafkaRecordOut;
  /** Renders the topic of one record; throws {@link TemplateError} when it cannot. */
  renderTopic(r: KafkaRecordOut): string;
}

/** What a record takes from a log event besides its value, as plain data (it crosses from a pipeline worker). */
interface RecordFields {
  readonly key?: string;
  readonly headers?: readonly (readonly [string, string])[];
  /** Epoch milliseconds. */
  readonly timestamp?: number;
}

/** The options the record's parts are compiled from (those a pipeline worker receives, too). */
type RecordOptions = Pick<KafkaSinkConfig, 'encoding' | 'topic' | 'key_field' | 'headers_key'>;

/** The options a pipeline worker builds this sink's records from. */
export const KAFKA_WORKER_OPTIONS = ['encoding', 'topic', 'key_field', 'headers_key'] as const;

/** A key or header value as text: text as it is, other scalars as their text; objects and arrays have none. */
function textOf(v: Value | undefined): string | undefined {
  if (v === undefined || v === null || (typeof v === 'object' && !(v instanceof Timestamp))) return undefined;
  return typeof v === 'string' ? v : valueToString(v);
}

/** The parts of a record read from an event, compiled once per sink (and once per pipeline worker). */
function recordParts(config: RecordOptions, logSchema?: LogSchemaKeys) {
  const topic = compileTemplate(config.topic);
  const keyPath: Path | undefined = config.key_field === undefined ? undefined : parsePath(config.key_field);
  const headersPath: Path | undefined = config.headers_key === undefined ? undefined : parsePath(config.headers_key);
  const timestampPath = parsePath(logSchema?.timestamp_key ?? 'timestamp');
  return {
    serializer: createSerializer(config.encoding, logSchema),
    topicOf(e: Event): string {
      const t = topic.render(e);
      if (t === undefined) throw new TemplateError(topic.text, `missing field(s) ${topic.missingFields(e).join(', ')}`);
      if (t === '') throw new TemplateError(topic.text, 'rendered to an empty topic');
      return t;
    },
    fieldsOf(e: LogEvent): RecordFields {
      const key = keyPath === undefined ? undefined : textOf(getPath(e.fields, keyPath));
      let headers: [string, string][] | undefined;
      if (headersPath !== undefined) {
        const h = getPath(e.fields, headersPath);
        if (isObject(h))
          for (const [name, v] of Object.entries(h)) {
            const text = textOf(v);
            if (text !== undefined) (headers ??= []).push([name, text]);
          }
      }
      const ts = getPath(e.fields, timestampPath);
      return { key, headers, timestamp: ts instanceof Timestamp ? ts.ms : undefined };
    },
  };
}

/** A record of `event` with `value` and the parts read from its fields. */
function record(event: Event, value: Buffer, f: RecordFields | undefined, timestamp = f?.timestamp): KafkaRecordOut {
  let size = value.length;
  const recordKey = f?.key === undefined ? undefined : Buffer.from(f.key);
  let headers: Map<Buffer, Buffer> | undefined;
  for (const [name, text] of f?.headers ?? []) {
    const b = Buffer.from(text);
    (headers ??= new Map()).set(Buffer.from(name), b);
    size += name.length + b.length;
  }
  if (recordKey !== undefined) size += recordKey.length;
  return { event, size, key: undefined, value, recordKey, headers, timestamp: timestamp === undefined ? undefined : BigInt(timestamp) };
}

/** Compiles the encoder once per sink. */
export function createKafkaEncoder(config: RecordOptions, logSchema?: LogSchemaKeys): KafkaEncoder {
  const parts = recordParts(config, logSchema);
  return {
    encode(event) {
      // encoded in a pipeline worker, which sent the parts it read with the record (its topic too)
      if (event instanceof EncodedLogEvent) return record(event, event.bytes.subarray(event.start, event.end), event.recordFields as RecordFields | undefined);
      const value = parts.serializer.serialize(event);
      if (event instanceof LogEvent) return record(event, value, parts.fieldsOf(event));
      return record(event, value, undefined, event instanceof MetricEvent ? event.timestamp?.ms : undefined);
    },
    renderTopic: (r) => parts.topicOf(r.event),
  };
}

/** The sink's records in a pipeline worker: each value's text, its topic, and its key, headers and timestamp. */
export function kafkaWorkerEncoder(config: RecordOptions, globals: GlobalOptions): WorkerSinkEncoder {
  const parts = recordParts(config, globals.log_schema);
  return {
    writeText: parts.serializer.writeText,
    separator: undefined,
    partition: parts.topicOf,
    recordFields: (e) => (e instanceof LogEvent ? parts.fieldsOf(e) : undefined),
  };
}
