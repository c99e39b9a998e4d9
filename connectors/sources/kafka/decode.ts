/**
 * One Kafka record to events (as Vector's kafka source): the value through the framing and codec,
 * then, on each log event, the record's key, topic, partition, offset and headers at their fields
 * (where the event has none) and the record's timestamp as the event time.
 */
import type { ComponentContext } from '../../../lib/component.js';
import { type Event, LogEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath, setPath } from '../../../lib/path.js';
import { type ObjectValue, Timestamp, type Value } from '../../../lib/value.js';
import { createMessageDecoder } from '../../shared/source/index.js';
import type { KafkaSourceConfig } from './config.js';

/** The parts of a consumed record the source reads. */
export interface ConsumedRecord {
  readonly key: Buffer | null | undefined;
  readonly value: Buffer | null | undefined;
  readonly headers: Map<Buffer, Buffer>;
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: bigint;
}

/** Decodes one record; appends its events to `out` and returns how many it added. */
export type KafkaRecordDecoder = (record: ConsumedRecord, out: Event[]) => number;

const EMPTY = Buffer.alloc(0);
const optionalPath = (text: string): Path | undefined => (text === '' ? undefined : parsePath(text));

/** Compiles the framing, codec and field paths once per source. */
export function createKafkaDecoder(
  config: Pick<KafkaSourceConfig, 'framing' | 'decoding' | 'key_field' | 'topic_key' | 'partition_key' | 'offset_key' | 'headers_key'>,
  ctx: Pick<ComponentContext, 'id' | 'globals' | 'telemetry' | 'log'>,
): KafkaRecordDecoder {
  const decode = createMessageDecoder(config, ctx, 'kafka');
  const keyPath = optionalPath(config.key_field);
  const topicPath = optionalPath(config.topic_key);
  const partitionPath = optionalPath(config.partition_key);
  const offsetPath = optionalPath(config.offset_key);
  const headersPath = optionalPath(config.headers_key);
  const put = (e: LogEvent, path: Path | undefined, value: () => Value) => {
    if (path !== undefined && getPath(e.fields, path) === undefined) setPath(e.fields, path, value());
  };
  return (record, into) => {
    const before = into.length;
    decode(record.value ?? EMPTY, new Timestamp(Number(record.timestamp)), into);
    for (let i = before; i < into.length; i++) {
      const e = into[i];
      if (!(e instanceof LogEvent)) continue;
      put(e, keyPath, () => (record.key === null || record.key === undefined ? null : record.key.toString('utf8')));
      put(e, topicPath, () => record.topic);
      put(e, partitionPath, () => record.partition);
      put(e, offsetPath, () => Number(record.offset));
      put(e, headersPath, () => {
        const headers: ObjectValue = {};
        for (const [k, v] of record.headers) headers[k.toString('utf8')] = v.toString('utf8');
        return headers;
      });
    }
    return into.length - before;
  };
}
