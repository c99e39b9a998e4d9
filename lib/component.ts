/**
 * Component definitions: every source, transform and sink is declared with one of these, its
 * valibot schema beside its factory. The catalog (connectors/index.ts) lists them all. The engine
 * asks a definition what it can do (acknowledge, run in a pipeline worker, accept a Vector option
 * it ignores) and never tests a component's type token.
 */
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';
import type { GenericSchema, InferOutput } from 'valibot';
import type { Delivery, DeliveryStatus, Event, EventBatch, RoutedBatch } from './event.js';
import type { Utf8Writer } from './codecs/json-bytes.js';
import type { Gate, GateController } from './gate.js';
import type { Logger } from './log.js';
import type { ComponentTelemetry, MetricsRegistry } from './telemetry/registry.js';
import type { GlobalOptions } from './config/global.js';
import type { SinkEnvelope } from './config/options/envelope.js';

export type ComponentKind = 'source' | 'transform' | 'sink';
/** What flows on an edge; checked when wiring (a metrics sink fed by a log-only source is an error). */
export type DataType = 'log' | 'metric' | 'any';

/** What every component's factory receives. */
export interface ComponentContext {
  readonly id: string;
  readonly type: string;
  readonly telemetry: ComponentTelemetry;
  readonly log: Logger;
  readonly globals: GlobalOptions;
  /** Virtual time in marble tests; never Date.now() in component logic. */
  readonly scheduler: SchedulerLike;
  /** The registry, for components that read it (internal_metrics, the API). */
  readonly registry: MetricsRegistry;
}

export interface SourceContext extends ComponentContext {
  /** Closed while a blocking buffer downstream is full: stop reading, stop polling. */
  readonly out: Gate;
  /** True when a sink downstream wants end-to-end acknowledgements from this source. */
  readonly acknowledgements: boolean;
  /** Emits once when the pipeline stops; a source finishes its current read and completes. */
  readonly shutdown$: Observable<void>;
  /**
   * Set when this source heads a threaded segment (docs/threads.md): a stream source hands each
   * connection's bytes to it instead of decoding them; the events come out of the segment.
   */
  readonly threaded?: ThreadedIntake | undefined;
}

/** Where a source puts its input bytes when its segment runs in workers. */
export interface ThreadedIntake {
  /** A stream's connection: its reads are cut at newlines into pieces. */
  connection(peerHost: string | undefined, peerPort: number | undefined): { push(chunk: Buffer): void; end(): void };
  /**
   * One message (a request body, whole lines of a file) handed over whole, as one buffer or the
   * parts it was read in, with what the source's worker decoder reads of it (`meta`). Messages are
   * released in the order they were handed over. Resolves once its events left the segment — with
   * `acknowledge`, once they were delivered — or with the reason the source's decoder refused it
   * (then no event was emitted).
   */
  message(bytes: Buffer | readonly Buffer[], meta: unknown, acknowledge: boolean): Promise<MessageOutcome>;
}

/** How a message handed to a threaded segment ended. */
export type MessageOutcome = { readonly refused: string } | { readonly status: DeliveryStatus; readonly events: number };

export interface SinkContext extends ComponentContext {
  /** Whether this sink settles finalizers on delivery (else they settle on buffer entry). */
  readonly acknowledgements: boolean;
  /**
   * The sink's demand: close it while the sink cannot take more (requests in flight at the limit,
   * a stream's write buffer full); the buffer's pull loop waits while it is closed.
   */
  readonly demand: GateController;
}

/** A named output of a source or transform (`route.errors`); default output has no name. */
export interface OutputDecl {
  readonly name?: string;
  readonly type: DataType;
}

interface BaseDef<S extends GenericSchema> {
  /** The config token (`socket`, `http`). */
  readonly type: string;
  /** One line for `weir list` and the docs. */
  readonly summary: string;
  /** Other type names a config may use for this component (Vector's names: `loki`); `weir list` shows them. */
  readonly aliases?: readonly string[];
  readonly schema: S;
  /**
   * Options Vector has on this component that weir does not implement yet (dotted, as a config
   * writes them; a path also covers the options below it), so `weir validate` reports one as "not
   * supported by weir yet" rather than as an unknown option (a typo).
   */
  readonly vectorOptions?: readonly string[];
}

/** What a pipeline worker (docs/threads.md) receives of a source's or a sink's options. */
export interface WorkerOptions {
  /** The option names a worker receives (framing, codec and what they read); the others stay on the main thread. */
  readonly options: readonly string[];
  /**
   * This configuration's per-event work is a copy: a line taken as the event's message (decoding),
   * or the message written as the record (encoding). A chain of such a source and sink with no
   * transform between them stays on the main thread, where the copy costs less than the crossing.
   */
  readonly copiesMessage?: boolean;
}

/**
 * A sink's encoder as a pipeline worker builds it from the options of {@link SinkDef.workerEncoding}:
 * each event's record, and its partition key when the sink groups batches by one (the event's fields
 * stay in the worker, so the key is rendered there).
 */
export interface WorkerSinkEncoder {
  /** Writes the event's record as the sink would encode it (UTF-8, no framing); throws when the codec cannot. */
  writeText(e: Event, w: Utf8Writer): void;
  /** The one ASCII character the sink's body puts between two records; undefined: bodies are built from texts. */
  readonly separator: string | undefined;
  /** The event's partition key; throws a `TemplateError` where the sink's own rendering would. */
  partition?(e: Event): string;
  /**
   * The key reads only the event's timestamp (or nothing): events stamped alike share it, so lines
   * copied as they are into records (docs/threads.md) take the key of the piece's probe event.
   */
  readonly partitionByTimeOnly?: boolean;
  /**
   * What else the sink's record takes from the event (a message key, headers, a timestamp), as
   * plain data sent with the record; the sink reads it back from the pre-encoded event.
   */
  recordFields?(e: Event): unknown;
}

/** How a source's byte stream is framed and decoded in a pipeline worker. */
export interface WorkerDecoding extends WorkerOptions {
  /**
   * The framing in effect (`newline_delimited`, `length_delimited` …), defaults applied: a segment
   * cuts a connection's reads into pieces at newlines only.
   */
  readonly framing: string;
  /**
   * Longest line in bytes a stream's piece cutter keeps (a longer one is discarded and counted, as
   * the deframer does); sources that hand whole messages (a request body) leave it out.
   */
  readonly maxLength?: number;
}

export interface SourceDef<S extends GenericSchema = GenericSchema> extends BaseDef<S> {
  readonly kind: 'source';
  /** Outputs and their data types; default: one default output of logs. */
  outputs?(config: InferOutput<S>): OutputDecl[];
  /** Whether this source can wait for delivery (end-to-end acknowledgements). */
  readonly acknowledges?: boolean;
  /**
   * Completes by itself once `shutdown$` fires, after taking in what its peers already sent
   * (bounded by its own timeout); other sources are cut off at once.
   */
  readonly drainsOnShutdown?: boolean;
  /**
   * Whether this configuration's per-event work (framing of a byte stream and decoding) can run in a
   * pipeline worker, fed through {@link SourceContext.threaded}, and with which framing and options;
   * undefined: it cannot (datagrams, per-connection metadata a worker does not see). Absent: never.
   */
  workerDecoding?(config: InferOutput<S>): WorkerDecoding | undefined;
  /** Emits batches (default output) or routed batches (named outputs); unsubscribe = stop. */
  build(config: InferOutput<S>, ctx: SourceContext): Observable<EventBatch | RoutedBatch>;
}

export interface TransformDef<S extends GenericSchema = GenericSchema> extends BaseDef<S> {
  readonly kind: 'transform';
  readonly input: DataType;
  /** One output event may stand for several input events (reduce): received and sent differ by design. */
  readonly merges?: boolean;
  /**
   * Whether this configuration keeps no state across events and needs nothing of the main thread,
   * so a pipeline worker can run it on any slice of the stream. Absent: never.
   */
  runsInWorker?(config: InferOutput<S>): boolean;
  /** Outputs; default: one default output carrying the input's type. */
  outputs?(config: InferOutput<S>): OutputDecl[];
  /** Runs synchronously between buffers; flushes its state on completion. */
  build(config: InferOutput<S>, ctx: ComponentContext): OperatorFunction<EventBatch, EventBatch | RoutedBatch>;
}

/** A sink's schema: its output carries the envelope every sink has (`sinkObject` in lib/config/options/envelope.ts). */
export type SinkSchema = GenericSchema<unknown, SinkEnvelope>;

export interface SinkDef<S extends SinkSchema = SinkSchema> extends BaseDef<S> {
  readonly kind: 'sink';
  readonly input: DataType;
  /** Largest chunk the pull loop hands over at once (usually the batch size). */
  pullSize?(config: InferOutput<S>): number;
  /**
   * Whether this configuration's encoder can run in a pipeline worker, which hands the sink
   * pre-encoded events, and with which options (its codec and framing); undefined: it cannot.
   * Absent: never. A disk buffer keeps a sink on the main thread whatever this says.
   */
  workerEncoding?(config: InferOutput<S>): WorkerOptions | undefined;
  /** Turns batches into deliveries; completes after flushing when its input completes. */
  build(config: InferOutput<S>, ctx: SinkContext): OperatorFunction<EventBatch, Delivery>;
  /** Boot-time check (fatal only with `--require-healthy`); rejects with a reason when unhealthy. */
  healthcheck?(config: InferOutput<S>, ctx: ComponentContext): Promise<void>;
}

export type ComponentDef = SourceDef | TransformDef | SinkDef;

export const defineSource = <S extends GenericSchema>(d: Omit<SourceDef<S>, 'kind'>): SourceDef<S> => ({ kind: 'source', ...d });
export const defineTransform = <S extends GenericSchema>(d: Omit<TransformDef<S>, 'kind'>): TransformDef<S> => ({ kind: 'transform', ...d });
export const defineSink = <S extends SinkSchema>(d: Omit<SinkDef<S>, 'kind'>): SinkDef<S> => ({ kind: 'sink', ...d });
