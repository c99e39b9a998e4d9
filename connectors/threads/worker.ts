/**
 * A pipeline worker thread (docs/threads.md): builds the segments the main thread sets up and
 * turns each piece of input bytes into encoded records — the source's framing and codec, the
 * transforms, the sink's encoder — counting what each component would have counted. Only the
 * modules of the component types it is asked for are loaded.
 */
import { parentPort } from 'node:worker_threads';
import { Subject } from 'rxjs';
import type { ComponentContext, ComponentKind, TransformDef, WorkerSinkEncoder } from '../../lib/component.js';
import { componentContext, sinkContext } from '../../lib/component-context.js';
import { type Event, type EventBatch, type RoutedBatch, batchSize, eventSize, settleAll } from '../../lib/event.js';
import { LogRoot } from '../../lib/log.js';
import { Utf8Writer, isVerbatimAscii } from '../../lib/codecs/json-bytes.js';
import type { StreamDecoder } from '../../lib/codecs/index.js';
import { type CounterDelta, type FromWorker, type Piece, type PieceResult, PieceRefused, type SegmentSetup, type ToWorker, failedResult } from '../../lib/threads/protocol.js';
import { type Counter, MetricsRegistry, type Series } from '../../lib/telemetry/registry.js';
import { TemplateError } from '../../lib/template.js';
import type { GlobalOptions } from '../../lib/config/global.js';
import { SinkEvents } from '../shared/sink-events.js';
import { type RecordTemplate, recordTemplate, writeVerbatim } from './verbatim.js';

const port = parentPort!;
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);

/** The transforms a segment may hold, by type (each loaded on first use). */
const TRANSFORMS: Record<string, () => Promise<TransformDef>> = {
  remap: async () => (await import('../transforms/remap/index.js')).remapTransform as unknown as TransformDef,
  filter: async () => (await import('../transforms/filter/index.js')).filterTransform as unknown as TransformDef,
  tokenizer: async () => (await import('../transforms/tokenizer/index.js')).tokenizerTransform as unknown as TransformDef,
};

/**
 * A source's decoder in a worker; `begin` takes what a piece says of its input (peer, request).
 * `verbatim: false`: the events of one piece differ by more than their message, so lines are never
 * copied into records as they are (verbatim.ts).
 */
type PieceDecoder = StreamDecoder & { begin(p: Piece): void; readonly verbatim?: boolean };

/** The sources whose input a segment may decode, by type (each loaded on first use). */
const SOURCES: Record<string, (options: unknown, ctx: ComponentContext) => Promise<PieceDecoder>> = {
  socket: async (options, ctx) => {
    const { decoderFor } = await import('../sources/socket/decoder.js');
    const d = decoderFor(options as Parameters<typeof decoderFor>[0], ctx, true)();
    return Object.assign(d, {
      begin: (p: Piece) => {
        d.stamp.host = p.host;
        d.stamp.port = p.port;
      },
    });
  },
  http_server: async (options, ctx) => {
    const { httpServerWorkerDecoder } = await import('../sources/http_server/decoder.js');
    const d = httpServerWorkerDecoder(options as Parameters<typeof httpServerWorkerDecoder>[0], ctx);
    const request = d.begin;
    return Object.assign(d, { begin: (p: Piece) => request(p.meta) });
  },
  file: async (options, ctx) => {
    const { fileWorkerDecoder } = await import('../sources/file/decoder.js');
    const d = fileWorkerDecoder(options as Parameters<typeof fileWorkerDecoder>[0], ctx);
    return Object.assign(d, { begin: (p: Piece) => d.piece(p.meta) });
  },
};

/** The sinks whose encoder a segment may run, by type (each loaded on first use). */
const SINKS: Record<string, (options: unknown, globals: GlobalOptions) => Promise<WorkerSinkEncoder>> = {
  http: async (options, globals) => (await import('../sinks/http/encoder.js')).createHttpEncoder(options as never, globals.log_schema),
  cloudw_object_storage: async (options, globals) => (await import('../shared/object-storage/worker.js')).objectWorkerEncoder(options as never, globals),
  cloudg_object_storage: async (options, globals) => (await import('../shared/object-storage/worker.js')).objectWorkerEncoder(options as never, globals),
  socket: async (options, globals) => (await import('../shared/stream-records.js')).streamWorkerEncoder(options as never, globals),
  console: async (options, globals) => (await import('../shared/stream-records.js')).streamWorkerEncoder(options as never, globals),
  file: async (options, globals) => (await import('../sinks/file/worker.js')).fileWorkerEncoder(options as never, globals),
  kafka: async (options, globals) => (await import('../sinks/kafka/encoder.js')).kafkaWorkerEncoder(options as never, globals),
};

/** One transform, run synchronously: a batch in, its default output's events out. */
interface Stage {
  readonly input: Subject<EventBatch>;
  readonly out: Event[][];
  readonly received: Counter;
  readonly receivedBytes: Counter;
  failed: Error | undefined;
}

/** A built segment. */
interface Segment {
  readonly decoder: PieceDecoder;
  readonly stages: readonly Stage[];
  /** Sent counters of each member but the last (the main thread's fan-out counts the last one's). */
  readonly sent: readonly { events: Counter; bytes: Counter }[];
  /** Writes the sink's text of an event; throws when its codec cannot encode it. */
  readonly writeText: (e: Event, w: Utf8Writer) => void;
  /** The sink's partition key of an event, when it groups batches by one. */
  readonly partition: ((e: Event) => string) | undefined;
  /** What else the sink's record takes from an event, when it reads more than its text. */
  readonly recordFields: ((e: Event) => unknown) | undefined;
  /** Where a piece's records are written, reused. */
  readonly writer: Utf8Writer;
  /** The byte the sink's body puts between two records (undefined: framed from texts, nothing between). */
  readonly separator: number | undefined;
  readonly sinkEvents: SinkEvents;
  /** Counters recorded on the main thread's side for events that fail to encode. */
  readonly lastSent: { events: Counter; bytes: Counter };
  readonly sinkReceived: { events: Counter; bytes: Counter };
  readonly sinkDiscarded: Counter;
  readonly registry: MetricsRegistry;
  readonly lastValues: Map<Series, number>;
  /** Lines may be written straight into records (verbatim.ts): no transforms, the source's `bytes` codec. */
  readonly verbatim: boolean;
}

/** A piece's records as they are written: each one's end offset and its event's size (grown as needed, reused). */
let recordEnds = new Uint32Array(4096);
let recordSizes = new Uint32Array(4096);
let recordCount = 0;
/** A piece's records' partition keys, and the records whose key did not render (sinks that partition). */
let recordKeys: string[] = [];
let keyFailures: [number, string, string][] = [];
/** What else each of a piece's records takes from its event (sinks that read more than its text). */
let recordExtras: unknown[] = [];

const segments = new Map<number, Segment | Promise<Segment | undefined>>();

/**
 * Size of the buffers a piece's records are written into (a piece is at most a 128 KiB slab of
 * lines; records that need more move into a larger one). Each goes to the main thread with its
 * answer and comes back once its records are in request bodies (`recycle`).
 */
const ANSWER_BYTES = 256 * 1024;
/** Buffers given back and kept for the next answers, at most. */
const FREE_ANSWERS = 16;
const answerBuffers: Buffer[] = [];
const logRoot = new LogRoot('info', { write() {} });

/** Builds a segment from its set-up; records logged while building are the main thread's to log, not ours. */
async function build(s: SegmentSetup): Promise<Segment> {
  logRoot.level = s.logLevel;
  const registry = new MetricsRegistry({});
  const globals = s.globals as Record<string, unknown>;
  const ctx = (kind: ComponentKind, m: { id: string; type: string }) => componentContext({ id: m.id, kind, type: m.type, registry, log: logRoot, globals });
  const sourceCtx = ctx('source', s.source);
  const source = SOURCES[s.source.type];
  if (!source) throw new Error(`source type "${s.source.type}" cannot run in a pipeline worker`);
  const decoder = await source(s.source.options, sourceCtx);
  const stages: Stage[] = [];
  // every member's context, in chain order: each but the last counts what it sends on
  const contexts = [sourceCtx];
  for (const t of s.transforms) {
    const load = TRANSFORMS[t.type];
    if (!load) throw new Error(`transform type "${t.type}" cannot run in a pipeline worker`);
    const def = await load();
    const tctx = ctx('transform', t);
    const op = def.build(t.options as never, tctx);
    const input = new Subject<EventBatch>();
    const stage: Stage = {
      input,
      out: [],
      received: tctx.telemetry.counter('component_received_events_total'),
      receivedBytes: tctx.telemetry.counter('component_received_event_bytes_total'),
      failed: undefined,
    };
    input.pipe(op).subscribe({
      next: (item: EventBatch | RoutedBatch) => {
        if (Array.isArray(item)) stage.out.push(item);
        // a named output has no consumer in a segment: dropped as the fan-out drops it
        else settleAll(item.events, 'delivered');
      },
      error: (err: unknown) => (stage.failed = err as Error),
    });
    stages.push(stage);
    contexts.push(tctx);
  }
  const sentOf = (c: (typeof contexts)[number]) => ({
    events: c.telemetry.counter('component_sent_events_total', { output: '_default' }),
    bytes: c.telemetry.counter('component_sent_event_bytes_total', { output: '_default' }),
  });
  const sent = contexts.slice(0, -1).map(sentOf);
  const sinkCtx = sinkContext(ctx('sink', s.sink));
  const sink = SINKS[s.sink.type];
  if (!sink) throw new Error(`sink type "${s.sink.type}" cannot run in a pipeline worker`);
  const encoder = await sink(s.sink.options, globals as GlobalOptions);
  const partition = encoder.partition?.bind(encoder);
  const recordFields = encoder.recordFields?.bind(encoder);
  return {
    decoder,
    stages,
    sent,
    writeText: (e, w) => encoder.writeText(e, w),
    partition,
    recordFields,
    writer: new Utf8Writer(ANSWER_BYTES),
    // one ASCII byte (',' or a newline) wherever the body joins records
    separator: encoder.separator === undefined ? undefined : encoder.separator.charCodeAt(0),
    sinkEvents: new SinkEvents(sinkCtx),
    lastSent: sentOf(contexts[contexts.length - 1]!),
    sinkReceived: { events: sinkCtx.telemetry.counter('component_received_events_total'), bytes: sinkCtx.telemetry.counter('component_received_event_bytes_total') },
    sinkDiscarded: sinkCtx.telemetry.counter('component_discarded_events_total', { intentional: 'false' }),
    registry,
    lastValues: new Map(),
    // a key rendered from each event's fields needs each event: lines copied as they are make none
    verbatim: s.transforms.length === 0 && (partition === undefined || encoder.partitionByTimeOnly === true) && recordFields === undefined && decoder.verbatim !== false && decodesBytes(s.source.options),
  };
}

/** Whether the source makes each line its `message` (the `bytes` codec, or http_server's legacy `text` encoding). */
function decodesBytes(options: unknown): boolean {
  const o = options as { decoding?: { codec?: string }; encoding?: string };
  return o.decoding !== undefined ? o.decoding.codec === 'bytes' : o.encoding === 'text' || o.encoding === undefined;
}

/** Counter increments since the last piece of this segment. */
function deltas(seg: Segment): CounterDelta[] {
  const out: CounterDelta[] = [];
  for (const s of seg.registry.all()) {
    if (s.type !== 'counter') continue;
    const last = seg.lastValues.get(s) ?? 0;
    if (s.value !== last) {
      out.push([s.name, s.tags, s.value - last]);
      seg.lastValues.set(s, s.value);
    }
  }
  return out;
}

/** Runs one batch through a stage; its default output's events, in order. */
function runStage(stage: Stage, batch: EventBatch): EventBatch {
  if (stage.failed) throw stage.failed;
  stage.input.next(batch);
  if (stage.failed) throw stage.failed;
  const out = stage.out;
  if (out.length === 0) return [];
  const result = out.length === 1 ? out[0]! : out.flat();
  out.length = 0;
  return result;
}

/** Closes the record just written: its end, its event's size. */
function recorded(end: number, size: number): void {
  if (recordCount === recordEnds.length) {
    const ends = new Uint32Array(recordCount * 2);
    ends.set(recordEnds);
    recordEnds = ends;
    const sizes = new Uint32Array(recordCount * 2);
    sizes.set(recordSizes);
    recordSizes = sizes;
  }
  recordEnds[recordCount] = end;
  recordSizes[recordCount++] = size;
}

/** Adds the partition key of the record being written, or the reason it did not render. */
function keyed(key: string | Error): void {
  if (typeof key === 'string') return void recordKeys.push(key);
  if (!(key instanceof TemplateError)) throw key;
  keyFailures.push([recordCount, key.template, key.reason]);
  recordKeys.push('');
}

/** Writes an event's record (after the body's separator when it is not the first); counts one it cannot encode as the sink would. */
function writeRecord(seg: Segment, e: Event): void {
  const w = seg.writer;
  const start = w.pos;
  try {
    // the body's separator between records lets the sink copy a run of them at once
    if (recordCount > 0 && seg.separator !== undefined) w.byte(seg.separator);
    seg.writeText(e, w);
  } catch (err) {
    w.pos = start;
    // what the sink would count on the main thread for an event it cannot encode
    const b = eventSize(e);
    seg.lastSent.events.add(1);
    seg.lastSent.bytes.add(b);
    seg.sinkReceived.events.add(1);
    seg.sinkReceived.bytes.add(b);
    seg.sinkEvents.encodeFailed(err);
    seg.sinkDiscarded.add(1);
    return;
  }
  if (seg.partition !== undefined) {
    // after the encoding, as the sink renders a key only for an event it encoded
    let key: string | Error;
    try {
      key = seg.partition(e);
    } catch (err) {
      key = err as Error;
    }
    keyed(key);
  }
  if (seg.recordFields !== undefined) recordExtras.push(seg.recordFields(e));
  recorded(w.pos, eventSize(e));
}

/** Decodes a piece, runs it through the transforms and writes the records; the events decoded and their size. */
function decodeAndWrite(seg: Segment, p: Piece, buf: Buffer): { decoded: number; decodedBytes: number } {
  const d = seg.decoder;
  let batch = d.push(buf);
  let decodedBytes = d.eventBytes;
  if (p.final) {
    const rest = d.end();
    decodedBytes += d.eventBytes;
    if (rest.length > 0) batch = batch.length === 0 ? rest : batch.concat(rest);
  }
  const decoded = batch.length;
  let bytes = decodedBytes;
  for (let i = 0; i < seg.stages.length && batch.length > 0; i++) {
    seg.sent[i]!.events.add(batch.length);
    seg.sent[i]!.bytes.add(bytes);
    const stage = seg.stages[i]!;
    stage.received.add(batch.length);
    stage.receivedBytes.add(bytes);
    batch = runStage(stage, batch);
    bytes = batchSize(batch);
  }
  for (let i = 0; i < batch.length; i++) writeRecord(seg, batch[i]!);
  return { decoded, decodedBytes };
}

const decodedHere: Event[] = [];

/** As {@link decodeAndWrite} for a segment without transforms: plain lines go straight into records (verbatim.ts). */
function copyAndWrite(seg: Segment, p: Piece, buf: Buffer): { decoded: number; decodedBytes: number } {
  const d = seg.decoder;
  const w = seg.writer;
  const sep = seg.separator;
  // the piece's lines are read where they are, four bytes at a time (the slab starts a shared buffer: aligned)
  const words = buf.byteOffset === 0 ? new Uint32Array(buf.buffer, 0, buf.length >>> 2) : undefined;
  let template: RecordTemplate | undefined | null = null;
  let decoded = 0;
  let decodedBytes = 0;
  const frame = (b: Buffer, start: number, end: number) => {
    // taken at the first line, once the decoder stamped the piece's receive time
    if (template === null) template = recordTemplate(d, seg.writeText, seg.partition);
    if (template !== undefined && isVerbatimAscii(b, b === buf ? words : undefined, start, end)) {
      const size = template.baseSize + end - start;
      decoded++;
      decodedBytes += size;
      if (recordCount > 0 && sep !== undefined) w.byte(sep);
      writeVerbatim(w, template, b, start, end);
      if (template.key !== undefined) keyed(template.key);
      recorded(w.pos, size);
      return;
    }
    decodedHere.length = 0;
    decodedBytes += d.decode(b, start, end, decodedHere);
    decoded += decodedHere.length;
    for (let i = 0; i < decodedHere.length; i++) writeRecord(seg, decodedHere[i]!);
  };
  d.pushFrames(buf, frame);
  if (p.final) d.endFrames(frame);
  return { decoded, decodedBytes };
}

function handle(seg: Segment, p: Piece): PieceResult {
  seg.decoder.begin(p);
  const buf = Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength);
  recordCount = 0;
  if (recordKeys.length > 0) recordKeys = [];
  if (keyFailures.length > 0) keyFailures = [];
  if (recordExtras.length > 0) recordExtras = [];
  let done;
  try {
    done = seg.verbatim ? copyAndWrite(seg, p, buf) : decodeAndWrite(seg, p, buf);
  } catch (err) {
    if (!(err instanceof PieceRefused)) throw err;
    // the source refuses the whole piece: no record of it is sent
    seg.writer.pos = 0;
    return { ...failedResult(p.segment, p.seq, ''), error: undefined, refused: err.message, counters: deltas(seg) };
  }
  const { decoded, decodedBytes } = done;
  const n = recordCount;
  // the records' bytes move to the main thread where they were written, without a copy; the next
  // piece's go into a buffer the main thread gave back, or a new one
  const records = seg.writer.detach(answerBuffers.pop() ?? Buffer.allocUnsafeSlow(ANSWER_BYTES));
  return {
    kind: 'result',
    segment: p.segment,
    seq: p.seq,
    bytes: records,
    ends: recordEnds.slice(0, n),
    gap: n > 0 && seg.separator !== undefined ? 1 : 0,
    eventBytes: recordSizes.slice(0, n),
    ...(seg.partition !== undefined ? { keys: recordKeys, keyFailures: keyFailures.length > 0 ? keyFailures : undefined } : {}),
    ...(seg.recordFields !== undefined ? { recordFields: recordExtras } : {}),
    decoded,
    decodedBytes,
    counters: deltas(seg),
  };
}

const send = (r: PieceResult) => post(r, [r.bytes.buffer as ArrayBuffer, r.ends.buffer as ArrayBuffer, r.eventBytes.buffer as ArrayBuffer]);

// records pass the worker's level check and rate limit here, then the main thread's root writes them
logRoot.forward = (level, msg, fields) => post({ kind: 'log', level, msg, fields });

port.on('message', (m: ToWorker) => {
  if (m.kind === 'setup') {
    const forward = logRoot.forward;
    logRoot.forward = undefined; // set-up messages (program warnings) were logged when the main thread built the same components
    const built = build(m).then(
      (seg) => seg,
      (err: unknown) => {
        post({ kind: 'setup-failed', segment: m.segment, error: (err as Error).message });
        return undefined;
      },
    );
    void built.finally(() => (logRoot.forward = forward));
    segments.set(m.segment, built);
    void built.then((seg) => seg && segments.set(m.segment, seg));
  } else if (m.kind === 'teardown') segments.delete(m.segment);
  else if (m.kind === 'recycle') {
    if (m.buffer.byteLength === ANSWER_BYTES && answerBuffers.length < FREE_ANSWERS) answerBuffers.push(Buffer.from(m.buffer));
  } else {
    const seg = segments.get(m.segment);
    if (seg === undefined) return send(failedResult(m.segment, m.seq, 'segment not set up'));
    const run = (s: Segment | undefined) => {
      if (!s) return send(failedResult(m.segment, m.seq, 'segment set-up failed'));
      try {
        send(handle(s, m));
      } catch (err) {
        send(failedResult(m.segment, m.seq, (err as Error).message));
      }
    };
    if (seg instanceof Promise) void seg.then(run);
    else run(seg);
  }
});
