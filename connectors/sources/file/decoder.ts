/**
 * The `file` source's line cutting and events as a pipeline worker runs them (docs/threads.md), in a
 * module of its own so workers load no watcher: the main thread reads the files and hands over
 * pieces of whole lines of one file, each with its path, host, the file offset of its first byte and
 * its read time; the worker cuts the lines, discards (and counts) those longer than
 * `max_line_bytes`, and builds each line's event as the main thread does (line-event.ts), its
 * offset the piece's plus the line's position in it.
 */
import type { FrameSink, Stamp, StreamDecoder } from '../../../lib/codecs/index.js';
import type { ComponentContext, WorkerDecoding } from '../../../lib/component.js';
import { type Event, eventSize } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { charsetName } from './charset.js';
import type { FileSourceConfig } from './config.js';
import { lineTooLongReporter } from './events.js';
import { lineEvent, lineKeys } from './line-event.js';

/** What the main thread sends with a piece of one file. */
export interface FilePiece {
  readonly path: string;
  readonly host: string;
  /** File offset of the piece's first byte. */
  readonly offset: number;
  /** Read time, milliseconds. */
  readonly at: number;
}

/** The options a worker builds the decoder from (the file's path and host come with each piece). */
const WORKER_OPTIONS = ['file_key', 'host_key', 'offset_key', 'max_line_bytes'] as const;

type WorkerFileOptions = Pick<FileSourceConfig, (typeof WORKER_OPTIONS)[number]>;

const NEWLINE = 0x0a;

/**
 * Whether pipeline workers can cut and decode this configuration's lines: UTF-8 lines ended by a
 * newline, one event per line. Multiline messages (their timeout and held lines), other charsets
 * and other delimiters stay on the main thread.
 */
export function fileWorkerDecoding(config: FileSourceConfig): WorkerDecoding | undefined {
  if (config.multiline !== undefined || config.message_start_indicator !== undefined) return undefined;
  if (config.line_delimiter !== '\n') return undefined;
  if (config.encoding !== undefined && charsetName(config.encoding.charset) !== 'utf-8') return undefined;
  // a line is its event's message (with the file's path, host and offset beside it)
  return { framing: 'newline_delimited', options: WORKER_OPTIONS, copiesMessage: true };
}

/** A worker's decoder of file pieces; `piece` sets the next piece's file, offset and read time. */
export function fileWorkerDecoder(config: WorkerFileOptions, ctx: ComponentContext): StreamDecoder & { piece(meta: unknown): void; readonly verbatim: boolean } {
  const keys = lineKeys(config, ctx.globals.log_schema);
  const tooLong = lineTooLongReporter(ctx);
  const max = config.max_line_bytes;
  const stamp: Stamp = { timestamp: new Timestamp(0), host: undefined, port: undefined };
  let meta: FilePiece = { path: '', host: '', offset: 0, at: 0 };
  // the bytes after the last newline of the piece: a file's last line, let go unterminated
  let rest: Buffer | undefined;
  let restAt = 0;
  let lastSize = 0;
  const decode = (buf: Buffer, start: number, end: number, out: Event[]): number => {
    // lines are framed in the piece itself: `start` is the line's position in it
    const e = lineEvent(keys, ctx.id, meta.path, meta.host, buf.toString('utf8', start, end), meta.offset + start, stamp.timestamp);
    out.push(e);
    return eventSize(e);
  };
  const line = (buf: Buffer, start: number, end: number, frame: FrameSink) => {
    if (end - start > max) tooLong(meta.path, end - start, max);
    else frame(buf, start, end);
  };
  const pushFrames = (buf: Buffer, frame: FrameSink) => {
    let from = 0;
    for (let i = buf.indexOf(NEWLINE); i >= 0; i = buf.indexOf(NEWLINE, from)) {
      line(buf, from, i, frame);
      from = i + 1;
    }
    rest = from < buf.length ? buf : undefined;
    restAt = from;
  };
  const endFrames = (frame: FrameSink) => {
    if (rest !== undefined) line(rest, restAt, rest.length, frame);
    rest = undefined;
  };
  const collect = (run: (frame: FrameSink) => void): Event[] => {
    const out: Event[] = [];
    let size = 0;
    run((buf, start, end) => (size += decode(buf, start, end, out)));
    lastSize = size;
    return out;
  };
  return {
    stamp,
    // the events of a piece differ by more than their message when they hold each line's offset
    verbatim: keys.offset === undefined,
    get eventBytes() {
      return lastSize;
    },
    piece(m) {
      meta = m as FilePiece;
      stamp.timestamp = new Timestamp(meta.at);
      rest = undefined;
    },
    push: (chunk) => collect((frame) => pushFrames(chunk, frame)),
    end: () => collect(endFrames),
    pushFrames,
    endFrames,
    decode,
  };
}
