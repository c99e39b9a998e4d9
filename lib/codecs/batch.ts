/**
 * Serializer + framer: one buffer per batch for stream sinks (socket, file, console). Events the
 * codec cannot encode (for whatever reason) are returned apart, so the sink can report them `rejected` and still write the rest.
 */
import type { Event } from '../event.js';
import { type EncodingConfig, type LogSchemaKeys, DEFAULT_LOG_SCHEMA, type Serializer, createSerializer } from './encoding.js';
import { type Framer, type FramingConfig, createFramer } from './framing.js';
import { ScratchBuffer } from '../utf8.js';

/** The outcome of encoding one batch. */
export interface EncodedBatch {
  /** Framed bytes of every encoded event, in order. */
  readonly bytes: Buffer;
  /** Events that made it into `bytes`. */
  readonly encoded: Event[];
  /** Events the codec rejected, with the first reason. */
  readonly failed: Event[];
  readonly reason: string | undefined;
}

/** A compiled batch encoder. */
export interface BatchEncoder {
  readonly serializer: Serializer;
  readonly framer: Framer;
  encode(events: readonly Event[]): EncodedBatch;
  /**
   * One event before framing, for a sink that gathers events over several batches: its text (text
   * codecs) or its framed payload (binary codecs). Throws when the event cannot be encoded.
   */
  piece(event: Event): string | Buffer;
  /** Framed bytes of pieces from {@link piece}, in order. */
  join(pieces: readonly (string | Buffer)[]): Buffer;
  /** Each event framed on its own (datagram sinks), in a buffer of its own; failures as in {@link encode}. */
  encodeEach(events: readonly Event[]): { frames: Buffer[]; encoded: Event[]; failed: Event[]; reason: string | undefined };
}

/**
 * Compiles `encoding` + `framing` once (framing method unset = the codec's stream default). With
 * `reuseBytes` the bytes of {@link BatchEncoder.encode} are written into the encoder's own buffer,
 * valid until its next encode: for a sink that writes one batch at a time and is done with its
 * bytes once the write finished (no new buffer per batch for the collector to find).
 */
export function createBatchEncoder(encoding: EncodingConfig, framing: FramingConfig, logSchema: LogSchemaKeys = DEFAULT_LOG_SCHEMA, reuseBytes = false): BatchEncoder {
  const serializer = createSerializer(encoding, logSchema);
  const scratch = reuseBytes ? new ScratchBuffer() : undefined;
  const framer = createFramer(framing, encoding.codec);
  // a binary codec (native) frames each payload; text codecs are framed as one string per batch
  const isBinary = serializer.isBinary;
  return {
    serializer,
    framer,
    encode(events) {
      const texts: string[] = [];
      const payloads: Buffer[] | undefined = isBinary ? [] : undefined;
      let encoded: Event[] = events as Event[];
      let failed: Event[] = [];
      let reason: string | undefined;
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        try {
          if (payloads) payloads.push(framer.frame(serializer.serialize(e)));
          else texts.push(serializer.serializeText(e));
          if (failed.length > 0) encoded.push(e);
        } catch (err) {
          // any error while encoding one event (an unencodable value, a stack overflow on a hostile
          // nesting depth) is about that event: it is rejected and the rest are written
          if (failed.length === 0) encoded = events.slice(0, i);
          failed.push(e);
          reason ??= (err as Error).message;
        }
      }
      return { bytes: payloads ? Buffer.concat(payloads) : framer.frameTexts(texts, scratch), encoded, failed, reason };
    },
    piece: (e) => (isBinary ? framer.frame(serializer.serialize(e)) : serializer.serializeText(e)),
    // pieces of one encoder are all texts or all buffers
    join: (pieces) => (isBinary ? Buffer.concat(pieces as Buffer[]) : framer.frameTexts(pieces as string[])),
    encodeEach(events) {
      const frames: Buffer[] = [];
      const encoded: Event[] = [];
      const failed: Event[] = [];
      let reason: string | undefined;
      for (const e of events) {
        try {
          frames.push(isBinary ? framer.frame(serializer.serialize(e)) : framer.frameTexts([serializer.serializeText(e)]));
          encoded.push(e);
        } catch (err) {
          failed.push(e);
          reason ??= (err as Error).message;
        }
      }
      return { frames, encoded, failed, reason };
    },
  };
}
