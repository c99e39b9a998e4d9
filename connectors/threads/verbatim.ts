/**
 * Records written straight from the input's bytes (docs/threads.md, "Lines copied as they are"):
 * in a segment without transforms whose source decodes each frame as its `message` (`bytes`
 * codec), a record differs from the next only by that message, and a line of printable ASCII
 * without quotes or backslashes is its own JSON string body. Such a line's record is the bytes
 * the sink's own encoder writes before the message, the line, then the bytes it writes after it:
 * no event object, no string, no per-field encoding. Both parts are taken once per piece from the
 * encoder itself, by encoding an event decoded from a probe line with the piece's stamp, so they
 * hold whatever the encoder writes (timestamp format, only/except fields, pretty printing);
 * every other line takes the usual way.
 */
import type { StreamDecoder } from '../../lib/codecs/index.js';
import { Utf8Writer } from '../../lib/codecs/json-bytes.js';
import type { Event } from '../../lib/event.js';

/** The probe's message: printable ASCII that an encoder writes as it is (so it can be found in the record). */
const PROBE = Buffer.from('weir-verbatim-probe-5f0c2e');

/** What the encoder writes around a message, for the events of one piece. */
export interface RecordTemplate {
  readonly before: Buffer;
  readonly after: Buffer;
  /** eventSize of an event decoded from a line, less the line's length. */
  readonly baseSize: number;
  /** The probe event's partition key (a sink's key that reads no field a line sets), or the error rendering it threw. */
  readonly key?: string | Error;
}

const scratch = new Utf8Writer(4096);
const probeEvents: Event[] = [];

/**
 * The template of the records of the frames the decoder stamps now, or undefined when the
 * encoder does not write the message exactly once as it is (then every line takes the usual way).
 */
export function recordTemplate(decoder: StreamDecoder, writeText: (e: Event, w: Utf8Writer) => void, partition?: (e: Event) => string): RecordTemplate | undefined {
  probeEvents.length = 0;
  const size = decoder.decode(PROBE, 0, PROBE.length, probeEvents);
  if (probeEvents.length !== 1) return undefined;
  scratch.pos = 0;
  try {
    writeText(probeEvents[0]!, scratch);
  } catch {
    return undefined;
  }
  const record = scratch.buf.subarray(0, scratch.pos);
  const at = record.indexOf(PROBE);
  if (at < 0 || record.indexOf(PROBE, at + 1) >= 0) return undefined;
  let key: string | Error | undefined;
  if (partition !== undefined) {
    try {
      key = partition(probeEvents[0]!);
    } catch (err) {
      key = err as Error;
    }
  }
  return {
    before: Buffer.from(record.subarray(0, at)),
    after: Buffer.from(record.subarray(at + PROBE.length)),
    baseSize: size - PROBE.length,
    key,
  };
}

/** Writes a line's record from the template: the part before the message, the line's bytes, the part after. */
export function writeVerbatim(w: Utf8Writer, t: RecordTemplate, line: Buffer, start: number, end: number): void {
  const n = end - start;
  w.ensure(t.before.length + n + t.after.length);
  const b = w.buf;
  b.set(t.before, w.pos);
  let at = w.pos + t.before.length;
  line.copy(b, at, start, end);
  at += n;
  b.set(t.after, at);
  w.pos = at + t.after.length;
}
