/**
 * Events to the encoded items of an object-storage sink: each event's text, and its partition key
 * rendered while its fields are at hand. The fields then go (unless a delivery must settle the
 * event): a batch of up to `max_bytes` of text waits for its object, and holding every event's
 * fields beside it would cost several times that.
 */
import { EncodedLogEvent, type Event, spend } from '../../../lib/event.js';
import { TemplateError } from '../../../lib/template.js';
import type { Encoded } from '../request-sink.js';
import type { ObjectBodyEncoder } from './body.js';
import type { ObjectPartition } from './partition.js';

/** One encoded event; `size` is its encoded byte length (before compression). */
export interface EncodedObjectEvent extends Encoded {
  readonly text: string;
}

/** An event this sink encoded: its partition key, or why it did not render. */
class ObjectItem implements EncodedObjectEvent {
  key: string | undefined = undefined;
  constructor(
    readonly event: Event,
    readonly size: number,
    readonly text: string,
    readonly rendered: string | TemplateError,
  ) {}
}

export interface ObjectEventEncoder {
  /** Encodes one event; throws for an event the codec cannot take (the skeleton rejects it alone). */
  encode(e: Event): EncodedObjectEvent;
  /** The partition key of an item; throws the {@link TemplateError} of a key that did not render. */
  partition(item: EncodedObjectEvent): string;
}

export function objectEventEncoder(body: ObjectBodyEncoder, partition: ObjectPartition): ObjectEventEncoder {
  return {
    encode: (e) => {
      // a pipeline worker's record is its own item, its key rendered there (docs/threads.md)
      if (e instanceof EncodedLogEvent) return e;
      const text = body.encode(e);
      let rendered: string | TemplateError;
      try {
        rendered = partition(e);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        rendered = err;
      }
      return new ObjectItem(spend(e), Buffer.byteLength(text, 'utf8'), text, rendered);
    },
    partition: (item) => {
      const r = (item as ObjectItem).rendered;
      if (r instanceof TemplateError) throw r;
      return r;
    },
  };
}
