/**
 * Events to stream records (as Vector's `aws_kinesis_streams`): the event encoded alone with `encoding.codec`
 * (no framing), and its partition key: the `partition_key_field` value as text cut at 256
 * characters, or 16 random alphanumerics. `size` (record bytes before compression plus key bytes)
 * counts against `batch.max_bytes`.
 */
import { randomFillSync } from 'node:crypto';
import { type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import { type Path, getPath, parsePath } from '../../../lib/path.js';
import { valueToString } from '../../../lib/value.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { CloudwStreamSinkConfig } from './config.js';

/** The service's partition key limit, in Unicode characters. */
export const MAX_KEY_CHARS = 256;
const RANDOM_KEY_CHARS = 16;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** One encoded event: its record bytes (uncompressed) and key; `partitionKey` undefined = the field was missing. */
export interface StreamRecord extends Encoded {
  readonly data: Buffer;
  readonly partitionKey: string | undefined;
}

/** Cuts a key to 256 characters, counting code points as the service does. */
export function cutKey(key: string): string {
  if (key.length <= MAX_KEY_CHARS) return key; // UTF-16 units ≥ code points
  const chars = Array.from(key);
  return chars.length <= MAX_KEY_CHARS ? key : chars.slice(0, MAX_KEY_CHARS).join('');
}

/** Random keys drawn from a pooled buffer, so each event costs no system call. */
function randomKeys(): () => string {
  const pool = Buffer.alloc(64 * 1024);
  let at = pool.length;
  return () => {
    if (at + RANDOM_KEY_CHARS > pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    let key = '';
    // 62 symbols: the modulo bias is irrelevant for spreading records over shards
    for (let i = 0; i < RANDOM_KEY_CHARS; i++) key += ALPHABET[pool[at++]! % ALPHABET.length];
    return key;
  };
}

/** The key of an event from its field: text of the value; missing, null or empty = undefined. */
function fieldKey(path: Path, e: Event): string | undefined {
  if (e.type !== 'log') return undefined;
  const v = getPath(e.fields, path);
  if (v === undefined || v === null) return undefined;
  const text = valueToString(v);
  return text === '' ? undefined : cutKey(text);
}

/** Compiles the encoder once per sink. */
export function createStreamEncoder(config: Pick<CloudwStreamSinkConfig, 'encoding' | 'partition_key_field'>, logSchema: LogSchemaKeys): (e: Event) => StreamRecord {
  const serializer = createSerializer(config.encoding, logSchema);
  const path = config.partition_key_field === undefined ? undefined : parsePath(config.partition_key_field);
  const random = randomKeys();
  return (event) => {
    const data = Buffer.from(serializer.serializeText(event), 'utf8');
    const partitionKey = path ? fieldKey(path, event) : random();
    return { event, size: data.length + (partitionKey === undefined ? 0 : Buffer.byteLength(partitionKey, 'utf8')), key: undefined, data, partitionKey };
  };
}
