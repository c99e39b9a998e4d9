/**
 * Events to the encoded items of an object-storage sink: each event's text, written once as UTF-8
 * into the sink's record arena, and its partition key rendered while its fields are at hand. The
 * fields then go (unless a delivery must settle the event): a batch of up to `max_bytes` of text
 * waits for its object, and holding every event's fields, or one string per event, beside it would
 * cost several times that in V8's heap.
 */
import { EncodedLogEvent, type Event, spend } from '../../../lib/event.js';
import { TemplateError } from '../../../lib/template.js';
import { RecordArena, type RecordBytes } from '../record-arena.js';
import type { Encoded } from '../request-sink.js';
import type { ObjectBodyEncoder } from './body.js';
import type { ObjectPartition } from './partition.js';

/** One encoded event: its text's UTF-8 bytes `bytes[start, end)`; `size` is their length (before compression). */
export interface EncodedObjectEvent extends Encoded, RecordBytes {}

/** An event this sink encoded: its record, and its partition key or why it did not render. */
class ObjectItem implements EncodedObjectEvent {
  key: string | undefined = undefined;
  constructor(
    readonly event: Event,
    readonly bytes: Buffer,
    readonly start: number,
    readonly end: number,
    readonly rendered: string | TemplateError,
  ) {}
  get size(): number {
    return this.end - this.start;
  }
}

export interface ObjectEventEncoder {
  /** Encodes one event; throws for an event the codec cannot take (the skeleton rejects it alone). */
  encode(e: Event): EncodedObjectEvent;
  /** The partition key of an item; throws the {@link TemplateError} of a key that did not render. */
  partition(item: EncodedObjectEvent): string;
  /** A batch's items were joined into its body: their records' memory may be reused. */
  release(items: readonly EncodedObjectEvent[]): void;
}

export function objectEventEncoder(body: ObjectBodyEncoder, partition: ObjectPartition): ObjectEventEncoder {
  const arena = new RecordArena();
  return {
    encode: (e) => {
      // a pipeline worker's record is its own item, its key rendered there (docs/threads.md)
      if (e instanceof EncodedLogEvent) return e;
      let rendered: string | TemplateError;
      try {
        rendered = partition(e);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        rendered = err;
      }
      const start = arena.record(body.writeText, e);
      return new ObjectItem(spend(e), arena.writer.buf, start, arena.writer.pos, rendered);
    },
    partition: (item) => {
      const r = (item as ObjectItem).rendered;
      if (r instanceof TemplateError) throw r;
      return r;
    },
    release: (items) => arena.releaseAll(items),
  };
}
