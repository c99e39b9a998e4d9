/**
 * The `http_server` source's framing and codec as a pipeline worker runs them (docs/threads.md),
 * in a module of its own so workers load no listener: a request body is one piece, decoded whole
 * or refused whole (a frame that does not decode refuses the request, as on the main thread), each
 * log event given the request's fields.
 */
import { type Deserializer, type FrameSink, type Stamp, createDeframer, createDeserializer, frameDiscardReporter } from '../../../lib/codecs/index.js';
import type { StreamDecoder } from '../../../lib/codecs/index.js';
import type { ComponentContext, WorkerDecoding } from '../../../lib/component.js';
import { type Event, type EventBatch, eventSize } from '../../../lib/event.js';
import { parsePath } from '../../../lib/path.js';
import { PieceRefused } from '../../../lib/threads/protocol.js';
import { Timestamp } from '../../../lib/value.js';
import { type HttpServerSourceConfig, codecsOf } from './config.js';
import { type RequestFields, enrichFields } from './enrich.js';

/** What the main thread sends with a request's body. */
export interface ThreadedRequest {
  /** Receive time, milliseconds. */
  readonly at: number;
  readonly fields: RequestFields;
}

/** The options a worker builds the decoder from (the request's fields come with each body). */
const WORKER_OPTIONS = ['encoding', 'framing', 'decoding', 'path_key', 'host_key'] as const;

/** Every configuration can: acknowledgements are kept per request by the segment. */
export function httpServerWorkerDecoding(config: HttpServerSourceConfig): WorkerDecoding {
  const { framing, decoding } = codecsOf(config);
  return { framing: framing.method ?? 'bytes', options: WORKER_OPTIONS, copiesMessage: decoding.codec === 'bytes' };
}

/** A worker's decoder of request bodies; `begin` sets the next body's request. */
export function httpServerWorkerDecoder(config: HttpServerSourceConfig, ctx: ComponentContext): StreamDecoder & { begin(meta: unknown): void } {
  const { framing, decoding } = codecsOf(config);
  const deserializer: Deserializer = createDeserializer(decoding, {
    sourceId: ctx.id,
    sourceType: 'http_server',
    logSchema: ctx.globals.log_schema,
    hostKey: '',
    timezone: ctx.globals.timezone,
  });
  const pathKey = config.path_key === '' ? undefined : parsePath(config.path_key);
  const hostKey = config.host_key === '' ? undefined : parsePath(config.host_key);
  const onDiscard = frameDiscardReporter(ctx);
  const maxBytes = ctx.globals.max_decompressed_bytes;
  const stamp: Stamp = { timestamp: new Timestamp(0, 0), host: undefined, port: undefined };
  let request: ThreadedRequest | undefined;
  let deframer = createDeframer(framing, { onDiscard, defaultMaxLength: maxBytes });
  let batch: Event[] = [];
  let size = 0;
  let lastSize = 0;
  const decode = (buf: Buffer, start: number, end: number, out: Event[]): number => {
    const from = out.length;
    try {
      deserializer.decode(buf, start, end, stamp, out);
    } catch (err) {
      throw new PieceRefused((err as Error).message);
    }
    // the size of the events as they leave the source: with the request's fields
    let bytes = 0;
    for (let i = from; i < out.length; i++) {
      const e = out[i]!;
      if (e.type === 'log' && request !== undefined) enrichFields(e.fields, request.fields, pathKey, hostKey);
      bytes += eventSize(e);
    }
    return bytes;
  };
  const emit: FrameSink = (buf, start, end) => {
    size += decode(buf, start, end, batch);
  };
  const take = (): EventBatch => {
    lastSize = size;
    size = 0;
    const out = batch;
    batch = [];
    return out;
  };
  return {
    stamp,
    get eventBytes() {
      return lastSize;
    },
    begin(meta) {
      request = meta as ThreadedRequest;
      stamp.timestamp = new Timestamp(request.at, 0);
      // a body is framed on its own, as on the main thread
      deframer = createDeframer(framing, { onDiscard, defaultMaxLength: maxBytes });
      batch = [];
      size = 0;
    },
    push(chunk) {
      deframer.push(chunk, emit);
      return take();
    },
    end() {
      deframer.end(emit);
      return take();
    },
    pushFrames(chunk, frame) {
      deframer.push(chunk, frame);
    },
    endFrames(frame) {
      deframer.end(frame);
    },
    decode,
  };
}
