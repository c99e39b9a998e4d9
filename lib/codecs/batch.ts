/**
 * Serializer + framer: one buffer per batch for stream sinks (socket, file, console). Events the
 * codec cannot encode (for whatever reason) are returned apart, so the sink can report them `rejected` and still write the rest.
 */
import { EncodedLogEvent, type Event } from '../event.js';
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
      // a pipeline worker's records (docs/threads.md), framed plainly: their bytes as they are
      if (framer.plain && events.length > 0 && events.every((e) => e instanceof EncodedLogEvent)) return encodedRecords(events, framer.suffix, scratch);
      const texts: string[] = [];
      const payloads: Buffer[] | undefined = isBinary ? [] : undefined;
      let encoded: Event[] = events as Event[];
      let failed: Event[] = [];
      let reason: string | undefined;
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        try {
          // a worker's record (with a framing that puts its length first, or beside events encoded here after a
          // reload): its bytes are sent as they were encoded, never dropped
          if (e instanceof EncodedLogEvent) {
            const text = recordText(e);
            if (payloads) payloads.push(framer.frame(Buffer.from(text, 'utf8')));
            else texts.push(text);
          } else if (payloads) payloads.push(framer.frame(serializer.serialize(e)));
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
    piece: (e) => (e instanceof EncodedLogEvent ? recordText(e) : isBinary ? framer.frame(serializer.serialize(e)) : serializer.serializeText(e)),
    // pieces of one encoder are all texts or all buffers
    join: (pieces) => (isBinary ? Buffer.concat(pieces as Buffer[]) : framer.frameTexts(pieces as string[])),
    encodeEach(events) {
      const frames: Buffer[] = [];
      const encoded: Event[] = [];
      const failed: Event[] = [];
      let reason: string | undefined;
      for (const e of events) {
        try {
          frames.push(e instanceof EncodedLogEvent ? framer.frameTexts([recordText(e)]) : isBinary ? framer.frame(serializer.serialize(e)) : framer.frameTexts([serializer.serializeText(e)]));
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

/** A worker's record as text, read for the last time: its answer's memory may go back to the worker. */
function recordText(e: EncodedLogEvent): string {
  const text = e.text;
  e.records?.done(1);
  return text;
}

/**
 * The framed bytes of a batch of pipeline workers' records under a plain framing: each frame is the
 * record and `suffix`, and a worker wrote that same byte between the records of one answer, so a
 * run of them is copied at once. Every record is read here for the last time.
 */
function encodedRecords(events: readonly Event[], suffix: number | undefined, scratch: ScratchBuffer | undefined): EncodedBatch {
  const records = events as readonly EncodedLogEvent[];
  const gap = suffix === undefined ? 0 : 1;
  let total = 0;
  for (const e of records) total += e.end - e.start + gap;
  const out = scratch ? scratch.take(total) : Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < records.length; ) {
    const first = records[i]!;
    const src = first.bytes;
    let end = first.end;
    let j = i + 1;
    // the next record of the same answer right after this one's delimiter: one copy for both
    while (j < records.length) {
      const next = records[j]!;
      if (next.bytes !== src || next.start !== end + gap || (gap === 1 && src[end] !== suffix)) break;
      end = next.end;
      j++;
    }
    at += src.copy(out, at, first.start, end);
    if (gap === 1) out[at++] = suffix!;
    first.records?.done(j - i);
    i = j;
  }
  return { bytes: scratch ? out.subarray(0, at) : out, encoded: events as Event[], failed: [], reason: undefined };
}
