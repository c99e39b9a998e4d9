/**
 * The running topology: sources, transforms and sinks wired by their inputs. Sources and
 * transforms run synchronously up to the sink buffers; each sink pulls from its own buffer.
 * Reload rebuilds only what changed and keeps the rest running (sources keep their sockets).
 */
import { Subject, type Subscription, asyncScheduler, takeUntil, tap, type SchedulerLike, type OperatorFunction } from 'rxjs';
import type { ComponentContext, ComponentKind } from '../component.js';
import { componentContext, sinkContext, sourceContext } from '../component-context.js';
import { type Delivery, type EventBatch, type RoutedBatch, freshBatchSize, knownBatchSize, settleAll } from '../event.js';
import { AllGate, GateController } from '../gate.js';
import type { EdgeBuffer } from '../buffer/buffer.js';
import { type BufferContext, bufferStages, createBuffer } from '../buffer/index.js';
import type { BufferConfig } from '../config/options/buffer.js';
import type { ComponentConfig, Config } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { LogRoot, Logger } from '../log.js';
import { type Counter, MetricsRegistry } from '../telemetry/registry.js';
import { DrainControl, drainBuffer } from './drain.js';
import { Fanout, type Port, type TapObserver } from './fanout.js';
import { buildProblem } from '../config/option-position.js';
import { type Graph, buildGraph, downstreamSinks } from './graph.js';
import { type HealthcheckFailure, runHealthchecks } from './healthcheck.js';
import { type SegmentPlan, planSegments, workerOptions } from '../threads/plan.js';
import { WorkerPool } from '../threads/pool.js';
import { ThreadedSegment } from '../threads/segment.js';

/** Builds the edge buffer of a sink (memory or disk; see lib/buffer). */
export type BufferFactory = (cfg: BufferConfig, ctx: BufferContext) => EdgeBuffer | Promise<EdgeBuffer>;

export interface TopologyOptions {
  readonly registry?: MetricsRegistry;
  readonly log: LogRoot;
  readonly scheduler?: SchedulerLike;
  readonly buffers?: BufferFactory;
  /**
   * Threads for pipeline work (docs/threads.md): 1 runs everything on the calling thread; more
   * runs eligible segments (stream source → stateless transforms → request sink) in that many
   * worker threads. Default 1.
   */
  readonly threads?: number;
  /** The pipeline worker's module (connectors' `pipelineWorkerEntry`); required for threads above 1. */
  readonly workerEntry?: URL;
}

type ConfigOf<K extends ComponentKind> = Extract<ComponentConfig, { kind: K }>;

interface Running<K extends ComponentKind> {
  readonly kind: K;
  readonly cfg: ConfigOf<K>;
  /** Built once per node; a source's and a sink's own contexts extend it. */
  readonly ctx: ComponentContext;
}

interface SourceNode extends Running<'source'> {
  readonly gate: AllGate;
  /** Set at its first batch: a source that fails before it never started. */
  hasEmitted: boolean;
  readonly stop$: Subject<void>;
  sub?: Subscription;
  done: Promise<void>;
  /** Stopped by a reload that rebuilds it: its outputs stay open for the new one. */
  replacing?: boolean;
  /** Set when the source heads a threaded segment (docs/threads.md). */
  segment?: ThreadedSegment;
}

type InputPort = Port & { upstreams: Set<Fanout> };

interface TransformNode extends Running<'transform'> {
  readonly op: OperatorFunction<EventBatch, EventBatch | RoutedBatch>;
  readonly port: InputPort;
  readonly input$: Subject<EventBatch>;
  replacing: boolean;
  sub?: Subscription;
}

interface SinkNode extends Running<'sink'> {
  readonly op: OperatorFunction<EventBatch, Delivery>;
  readonly port: InputPort;
  readonly buffer: EdgeBuffer;
  readonly drain: DrainControl;
  readonly demand: GateController;
  readonly acks: boolean;
  sub?: Subscription;
  done: Promise<void>;
  /** Set once `done` resolved. */
  isDone: boolean;
  /** Set at its first delivery: a sink that fails before it never started. */
  hasDelivered: boolean;
}

type Node = SourceNode | TransformNode | SinkNode;

/** A source or sink whose subscription ended with an error. */
export interface ComponentFailure {
  readonly id: string;
  readonly kind: 'source' | 'sink';
  readonly type: string;
  readonly error: string;
  /** It failed before its first batch (source) or delivery (sink): it never started. */
  readonly atStart: boolean;
}

/** How long a shutdown drains before the log says what it is waiting for (ms). */
export const DRAIN_NOTICE_MS = 5000;

/** Options of {@link Topology.stop}. */
export interface StopOptions {
  /** Deadline of the drain in ms; undefined = wait for it however long it takes. */
  readonly deadlineMs?: number | undefined;
  /** Settles when the drain must end at once (a second SIGINT): stop() then resolves false. */
  readonly force?: Promise<unknown>;
}

/** What a new configuration adds, changes and removes, by component id. */
interface Changes {
  readonly added: string[];
  readonly changed: string[];
  readonly removed: string[];
}

/** The new nodes of a reload, built but not yet started. */
interface Built {
  readonly nodes: Map<string, Node>;
  /** Sinks whose running buffer the new node takes over. */
  readonly reusedBuffers: Set<string>;
}

const sameJSON = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Both buffers have a disk stage of one format: they would open the same store. */
function sharesDiskStore(a: BufferConfig, b: BufferConfig): boolean {
  const disks = new Set<string>(bufferStages(a).map((s) => s.type).filter((t) => t !== 'memory'));
  return bufferStages(b).some((s) => disks.has(s.type));
}

export class Topology {
  readonly registry: MetricsRegistry;
  private readonly scheduler: SchedulerLike;
  private readonly buffers: BufferFactory;
  private readonly nodes = new Map<string, Node>();
  private readonly fanouts = new Map<string, Fanout>();
  private config: Config | undefined;
  private graph: Graph | undefined;
  private stopping = false;
  private readonly changes = new Subject<Changes>();
  /** What each start and reload added, changed and removed (the API's componentAdded/Removed, tap). */
  readonly changes$ = this.changes.asObservable();
  private utilizationTimer: NodeJS.Timeout | undefined;
  private readonly log: Logger;
  /** Threaded segments of the running graph, by source id (empty with one thread). */
  private plans = new Map<string, SegmentPlan>();
  private pool: WorkerPool | undefined;
  private segmentIds = 0;
  private readonly failed = new Subject<ComponentFailure>();
  /** Every source or sink failure, as it happens. */
  readonly failures$ = this.failed.asObservable();
  private readonly failureList: ComponentFailure[] = [];

  constructor(private readonly opts: TopologyOptions) {
    this.registry = opts.registry ?? new MetricsRegistry();
    this.scheduler = opts.scheduler ?? asyncScheduler;
    this.buffers = opts.buffers ?? createBuffer;
    this.log = opts.log.logger();
    if ((opts.threads ?? 1) > 1 && !opts.workerEntry) throw new Error('threads above 1 need the pipeline worker module (workerEntry)');
  }

  get currentConfig(): Config | undefined {
    return this.config;
  }
  /** The resolved wiring of the running configuration (undefined before start). */
  get currentGraph(): Graph | undefined {
    return this.graph;
  }
  /** Observes one output's batches (see Fanout.addTap); undefined when no such output runs. */
  tapOutput(outputId: string, observer: TapObserver): (() => void) | undefined {
    return this.fanouts.get(outputId)?.addTap(observer);
  }
  get components(): ReadonlyMap<string, { kind: ComponentKind; type: string; merges: boolean; buffer?: string }> {
    const m = new Map<string, { kind: ComponentKind; type: string; merges: boolean; buffer?: string }>();
    for (const [id, n] of this.nodes)
      m.set(id, { kind: n.kind, type: n.cfg.def.type, merges: n.kind === 'transform' && !!n.cfg.def.merges, ...(n.kind === 'sink' ? { buffer: n.cfg.options.buffer.type } : {}) });
    return m;
  }
  /** The sources and sinks that failed so far, in order. */
  get failures(): readonly ComponentFailure[] {
    return this.failureList;
  }
  /** Events held in a sink's buffer (tests, API). */
  bufferedEvents(sinkId: string): number {
    return this.sink(sinkId)?.buffer.length ?? 0;
  }
  /** Segments of the running graph that run in pipeline workers (docs/threads.md); 0 with one thread. */
  get threadedSegments(): number {
    return this.plans.size;
  }

  /** The pipeline workers, once a threaded segment started (tests). */
  get workerPool(): WorkerPool | undefined {
    return this.pool;
  }
  /** The backpressure gate a source sees (tests, API). */
  sourceGate(sourceId: string): AllGate | undefined {
    const n = this.nodes.get(sourceId);
    return n?.kind === 'source' ? n.gate : undefined;
  }

  /** Builds and starts everything. Throws ConfigError for bad wiring or a component that fails to build. */
  async start(config: Config): Promise<void> {
    const { graph, problems } = buildGraph(config);
    if (!graph) throw new ConfigError(problems);
    for (const w of graph.warnings) this.log.warn(w);
    await this.apply(config, graph);
    this.utilizationTimer = setInterval(() => this.updateUtilization(), 5000);
    this.utilizationTimer.unref();
  }

  /**
   * Applies a new configuration: removed components stop, changed ones are rebuilt (a sink
   * keeps its buffer when the buffer options did not change), unchanged ones keep running.
   */
  async reload(config: Config): Promise<{ added: string[]; changed: string[]; removed: string[] }> {
    const { graph, problems } = buildGraph(config);
    if (!graph) throw new ConfigError(problems);
    return this.apply(config, graph);
  }

  /** The configuration change being applied: one at a time, and whenFinished waits for it. */
  private applying: Promise<unknown> = Promise.resolve();
  private pendingApplies = 0;

  /** Applies configurations in the order given, each after the previous one settled. */
  private apply(config: Config, graph: Graph): Promise<Changes> {
    const run = this.applying.then(
      () => this.applyNow(config, graph),
      () => this.applyNow(config, graph),
    );
    this.pendingApplies++;
    this.applying = run.finally(() => this.pendingApplies--).catch(() => undefined);
    return run;
  }

  private async applyNow(config: Config, graph: Graph): Promise<Changes> {
    const changes = this.diff(config, graph);
    this.replan(graph, changes);
    // Build everything new first: a component that fails to build leaves the running topology untouched.
    const built = await this.buildComponents(config, graph, changes);
    const oldSinkDone = await this.stopComponents(changes, built);
    this.replaceNodes(changes, built);
    this.updateFanouts(graph);
    this.wire(graph);
    this.config = config;
    this.graph = graph;
    this.startComponents(built, downstreamSinks(graph), oldSinkDone);
    for (const id of changes.removed) this.registry.forget(id);
    this.changes.next(changes);
    return changes;
  }

  /** Ids new in `graph`, changed in it (options, kind, or any global option), and gone from it. */
  private diff(config: Config, graph: Graph): Changes {
    const changes: Changes = { added: [], changed: [], removed: [] };
    // the api table concerns the management API only: changing it rebuilds no component
    const globalsChanged = this.config !== undefined && !sameJSON({ ...this.config.globals, api: undefined }, { ...config.globals, api: undefined });
    for (const id of this.nodes.keys()) if (!graph.nodes.has(id)) changes.removed.push(id);
    for (const [id, n] of graph.nodes) {
      const prev = this.nodes.get(id);
      if (!prev) changes.added.push(id);
      else if (prev.kind !== n.config.kind || !sameJSON(prev.cfg.raw, n.config.raw) || globalsChanged) changes.changed.push(id);
    }
    return changes;
  }

  /**
   * Finds the threaded segments of the new graph; a running source whose segment changed (a member's
   * options, or the chain itself) is rebuilt so its workers get the new set-up.
   */
  private replan(graph: Graph, changes: Changes): void {
    const plans = (this.opts.threads ?? 1) > 1 ? planSegments(graph) : new Map<string, SegmentPlan>();
    for (const id of new Set([...plans.keys(), ...this.plans.keys()])) {
      if (plans.get(id)?.signature === this.plans.get(id)?.signature) continue;
      if (this.nodes.has(id) && graph.nodes.has(id) && !changes.changed.includes(id)) changes.changed.push(id);
    }
    this.plans = plans;
  }

  /** Builds the added and changed components; throws one ConfigError naming every one that failed. */
  private async buildComponents(config: Config, graph: Graph, changes: Changes): Promise<Built> {
    const built: Built = { nodes: new Map(), reusedBuffers: new Set() };
    const problems: ConfigError['problems'][number][] = [];
    for (const id of [...changes.added, ...changes.changed]) {
      const cfg = graph.nodes.get(id)!.config;
      const ctx = componentContext({ id, kind: cfg.kind, type: cfg.def.type, registry: this.registry, log: this.opts.log, globals: config.globals, scheduler: this.scheduler });
      try {
        if (cfg.kind === 'source') built.nodes.set(id, { kind: 'source', cfg, ctx, gate: new AllGate(), hasEmitted: false, stop$: new Subject<void>(), done: Promise.resolve() });
        else if (cfg.kind === 'transform') {
          const op = cfg.def.build(cfg.options, ctx);
          const input$ = new Subject<EventBatch>();
          built.nodes.set(id, { kind: 'transform', cfg, ctx, op, port: this.transformPort(ctx, input$), input$, replacing: false });
        } else built.nodes.set(id, await this.buildSink(cfg, ctx, built));
      } catch (err) {
        problems.push(buildProblem(err, cfg.file, `${cfg.kind}s`, id));
      }
    }
    if (problems.length) throw new ConfigError(problems);
    return built;
  }

  /** Builds a sink and its buffer, or takes over the running sink's buffer where it can. */
  private async buildSink(cfg: ConfigOf<'sink'>, ctx: ComponentContext, built: Built): Promise<SinkNode> {
    const acks = cfg.options.acknowledgements.enabled ?? ctx.globals.acknowledgements.enabled;
    const demand = new GateController(true);
    const op = cfg.def.build(cfg.options, sinkContext(ctx, { acknowledgements: acks, demand }));
    const prev = this.sink(ctx.id);
    const bufCfg = cfg.options.buffer;
    const prevBuf = prev?.cfg.options.buffer;
    let buffer: EdgeBuffer;
    if (prev && sameJSON(prevBuf, bufCfg)) {
      buffer = prev.buffer;
      built.reusedBuffers.add(ctx.id);
    } else if (prev && sharesDiskStore(prevBuf!, bufCfg)) {
      // one store per sink directory (LevelDB locks it): the running store stays, new limits apply at restart
      ctx.log.warn('disk buffer options change at the next restart; the running buffer is kept');
      buffer = prev.buffer;
      built.reusedBuffers.add(ctx.id);
    } else buffer = await this.buffers(bufCfg, ctx);
    return { kind: 'sink', cfg, ctx, op, port: this.sinkPort(acks, buffer), buffer, drain: new DrainControl(), demand, acks, done: Promise.resolve(), isDone: false, hasDelivered: false };
  }

  /**
   * Stops what goes away or changes: sources first, so nothing new enters while rewiring; then
   * transforms flush and sinks let go of their buffers. Resolves with each stopped sink's `done`.
   */
  private async stopComponents(changes: Changes, built: Built): Promise<Map<string, Promise<void>>> {
    const stopping = [...changes.removed, ...changes.changed];
    const waits: Promise<void>[] = [];
    for (const id of stopping) {
      const n = this.nodes.get(id)!;
      if (n.kind === 'source') {
        if (!changes.removed.includes(id)) n.replacing = true;
        n.stop$.next();
        n.stop$.complete();
        // a removed source's output goes away: let it drain into it first; a changed source
        // keeps its outputs, so its old connections may finish while the new one listens
        if (changes.removed.includes(id)) waits.push(n.done);
      }
    }
    await Promise.all(waits);
    const oldSinkDone = new Map<string, Promise<void>>();
    for (const id of stopping) {
      const n = this.nodes.get(id)!;
      if (n.kind === 'transform') {
        for (const f of n.port.upstreams) f.detach(n.port);
        n.replacing = true;
        n.input$.complete(); // flushes its state into its outputs, which stay attached downstream
      } else if (n.kind === 'sink') {
        for (const f of n.port.upstreams) f.detach(n.port);
        if (built.reusedBuffers.has(id)) {
          n.drain.detached = true;
          n.buffer.release();
        } else n.buffer.close();
        oldSinkDone.set(id, n.done);
      }
    }
    return oldSinkDone;
  }

  /** Drops the removed nodes (a removed sink's buffer goes once it finished) and puts in the built ones. */
  private replaceNodes(changes: Changes, built: Built): void {
    for (const id of changes.removed) {
      const n = this.nodes.get(id)!;
      this.nodes.delete(id);
      if (n.kind === 'sink') void n.done.then(() => n.buffer.dispose());
    }
    for (const [id, n] of built.nodes) this.nodes.set(id, n);
  }

  /** One fan-out per output id, kept across rebuilds so downstream stays attached. */
  private updateFanouts(graph: Graph): void {
    const liveOutputs = new Set<string>();
    for (const n of graph.nodes.values()) {
      for (const o of n.outputs) {
        liveOutputs.add(o.id);
        if (!this.fanouts.has(o.id)) {
          const t = this.nodes.get(o.component)!.ctx.telemetry;
          const tag = { output: o.name ?? '_default' };
          this.fanouts.set(o.id, new Fanout(o.id, t.counter('component_sent_events_total', tag), t.counter('component_sent_event_bytes_total', tag)));
        }
      }
    }
    for (const id of [...this.fanouts.keys()]) if (!liveOutputs.has(id)) this.fanouts.delete(id);
  }

  /** Attaches every consumer port to exactly its resolved inputs. */
  private wire(graph: Graph): void {
    for (const n of graph.nodes.values()) {
      const node = this.nodes.get(n.config.id)!;
      if (node.kind === 'source') continue;
      const want = new Set(n.inputs.map((i) => this.fanouts.get(i.id)!));
      for (const f of node.port.upstreams) if (!want.has(f)) {
        f.detach(node.port);
        node.port.upstreams.delete(f);
      }
      for (const f of want) {
        f.attach(node.port);
        node.port.upstreams.add(f);
      }
    }
    for (const f of this.fanouts.values()) for (const n of this.nodes.values()) if (n.kind !== 'source' && f.has(n.port) && !n.port.upstreams.has(f)) f.detach(n.port);
  }

  /** Starts consumers before producers: sinks (each after its predecessor finished), transforms, then sources. */
  private startComponents(built: Built, sinksDown: Map<string, Set<string>>, oldSinkDone: Map<string, Promise<void>>): void {
    for (const [id, n] of built.nodes) if (n.kind === 'sink') this.startSink(n, oldSinkDone.get(id));
    for (const n of built.nodes.values()) if (n.kind === 'transform') this.startTransform(n);
    this.updateGates(sinksDown);
    for (const n of built.nodes.values()) if (n.kind === 'source') this.startSource(n, sinksDown);
  }

  private sink(id: string): SinkNode | undefined {
    const n = this.nodes.get(id);
    return n?.kind === 'sink' ? n : undefined;
  }

  private updateGates(sinksDown: Map<string, Set<string>>): void {
    for (const n of this.nodes.values()) {
      if (n.kind !== 'source') continue;
      const gates = [...(sinksDown.get(n.cfg.id) ?? [])].map((s) => this.sink(s)!.buffer.gate);
      if (n.segment) {
        n.segment.downstream.setMembers(gates);
        n.gate.setMembers([n.segment.gate]);
      } else n.gate.setMembers(gates);
    }
  }

  private routeOutput(id: string, item: EventBatch | RoutedBatch, bytes?: number): void {
    if (Array.isArray(item)) this.fanouts.get(id)?.emit(item, bytes);
    else this.fanouts.get(`${id}.${item.output}`)?.emit(item.events, bytes);
  }

  private endOutputs(id: string): void {
    for (const f of this.fanouts.values()) if (f.id === id || f.id.startsWith(id + '.')) f.end();
  }

  private startSource(n: SourceNode, sinksDown: Map<string, Set<string>>): void {
    const def = n.cfg.def;
    const { telemetry, log } = n.ctx;
    const downstreamAcks = [...(sinksDown.get(n.cfg.id) ?? [])].some((s) => this.sink(s)!.acks);
    if (!def.acknowledges && downstreamAcks) log.warn('source does not support end-to-end acknowledgements; silent data loss could occur');
    const received = telemetry.counter('component_received_events_total');
    const receivedBytes = telemetry.counter('component_received_event_bytes_total');
    const perBatch = telemetry.histogram('component_received_events_count');
    const id = n.cfg.id;
    const segment = this.startSegment(n, (events, bytes) => {
      received.add(events);
      receivedBytes.add(bytes);
      perBatch.record(events);
    });
    if (segment) this.updateGates(sinksDown);
    const ctx = sourceContext(n.ctx, { out: n.gate, acknowledgements: !!def.acknowledges && downstreamAcks, shutdown$: n.stop$.asObservable(), threaded: segment });
    let resolve!: () => void;
    n.done = new Promise((r) => (resolve = r));
    const end = () => {
      if (this.nodes.get(id) === n && !n.replacing) this.endOutputs(id);
      resolve();
    };
    // a segment's source is done once the workers answered everything it read
    const finish = () => (segment ? void segment.whenDrained().then(() => (segment.close(), end())) : end());
    try {
      const built = def.build(n.cfg.options, ctx);
      n.sub = (def.drainsOnShutdown ? built : built.pipe(takeUntil(n.stop$))).subscribe({
          next: (item) => {
            n.hasEmitted = true;
            const events = Array.isArray(item) ? item : item.events;
            const bytes = freshBatchSize(events);
            received.add(events.length);
            receivedBytes.add(bytes);
            perBatch.record(events.length);
            this.routeOutput(id, item, bytes);
          },
          error: (err: unknown) => {
            telemetry.counter('component_errors_total', { error_type: 'source_failed', stage: 'receiving' }).add();
            this.fail(n, err, !n.hasEmitted);
            finish();
          },
          complete: finish,
        });
    } catch (err) {
      this.fail(n, err, true);
      finish();
    }
  }

  /** The main thread's side of the source's threaded segment, when it heads one. */
  private startSegment(n: SourceNode, decoded: (events: number, bytes: number) => void): ThreadedSegment | undefined {
    const plan = this.plans.get(n.cfg.id);
    if (!plan) return undefined;
    const member = (id: string) => {
      const c = this.nodes.get(id)!.cfg;
      return { id, type: c.def.type, options: workerOptions(c) };
    };
    const pool = (this.pool ??= new WorkerPool(this.opts.threads!, this.opts.workerEntry!, this.opts.log));
    const chain = [plan.source, ...plan.transforms, plan.sink].join(' -> ');
    try {
      n.segment = this.segmentOf(n, pool, plan, member, decoded);
    } catch (err) {
      // e.g. options a worker cannot receive: the chain runs on the main thread, wired as it is
      n.ctx.log.warn('Cannot run in pipeline worker threads; runs on the main thread.', { segment: chain, error: (err as Error).message });
      return undefined;
    }
    n.ctx.log.info('Decoding, transforms and encoding run in pipeline worker threads.', { threads: pool.size, segment: chain });
    return n.segment;
  }

  private segmentOf(
    n: SourceNode,
    pool: WorkerPool,
    plan: SegmentPlan,
    member: (id: string) => { id: string; type: string; options: unknown },
    decoded: (events: number, bytes: number) => void,
  ): ThreadedSegment {
    const last = plan.transforms.length > 0 ? plan.transforms[plan.transforms.length - 1]! : plan.source;
    return new ThreadedSegment({
      pool,
      setup: {
        kind: 'setup',
        segment: this.segmentIds++,
        source: member(plan.source),
        transforms: plan.transforms.map(member),
        sink: member(plan.sink),
        globals: this.config!.globals,
        logLevel: this.opts.log.level,
      },
      source: n.ctx,
      registry: this.registry,
      maxLength: n.cfg.def.workerDecoding?.(n.cfg.options)?.maxLength ?? Number.POSITIVE_INFINITY,
      decoded,
      emit: (batch, bytes) => this.routeOutput(last, batch, bytes),
    });
  }

  private transformPort(ctx: ComponentContext, input$: Subject<EventBatch>): InputPort {
    const received = ctx.telemetry.counter('component_received_events_total');
    const receivedBytes = ctx.telemetry.counter('component_received_event_bytes_total');
    const upstreams = new Set<Fanout>();
    const ended = new Set<Fanout>();
    return {
      upstreams,
      push: (batch, bytes) => {
        received.add(batch.length);
        receivedBytes.add(bytes);
        input$.next(batch);
      },
      upstreamEnded: (f) => {
        ended.add(f);
        if ([...upstreams].every((u) => ended.has(u) || u.ended)) input$.complete();
      },
    };
  }

  private startTransform(n: TransformNode): void {
    const id = n.cfg.id;
    n.sub = n.input$.pipe(n.op).subscribe({
      next: (item) => this.routeOutput(id, item),
      error: (err: unknown) => {
        n.ctx.log.error('transform failed', { error: (err as Error).message });
        n.ctx.telemetry.counter('component_errors_total', { error_type: 'transform_failed', stage: 'processing' }).add();
        if (!n.replacing) this.endOutputs(id);
      },
      complete: () => {
        if (!n.replacing) this.endOutputs(id);
      },
    });
  }

  private sinkPort(acks: boolean, buffer: EdgeBuffer): InputPort {
    const upstreams = new Set<Fanout>();
    const ended = new Set<Fanout>();
    return {
      upstreams,
      push: (batch, bytes) => {
        // without acknowledgements a sink releases events when they enter its buffer
        if (!acks) settleAll(batch, 'delivered');
        buffer.push(batch, bytes);
      },
      upstreamEnded: (f) => {
        ended.add(f);
        if ([...upstreams].every((u) => ended.has(u) || u.ended)) buffer.close();
      },
    };
  }

  private startSink(n: SinkNode, after: Promise<void> | undefined): void {
    const max = n.cfg.def.pullSize?.(n.cfg.options) ?? 1000;
    const { telemetry, log } = n.ctx;
    const received = telemetry.counter('component_received_events_total');
    const receivedBytes = telemetry.counter('component_received_event_bytes_total');
    const sent = telemetry.counter('component_sent_events_total');
    const sentEventBytes = telemetry.counter('component_sent_event_bytes_total');
    const sentBytes = telemetry.counter('component_sent_bytes_total');
    const failed: Record<string, Counter> = {
      errored: telemetry.counter('component_discarded_events_total', { intentional: 'false' }),
      rejected: telemetry.counter('component_discarded_events_total', { intentional: 'false' }),
    };
    let resolve!: () => void;
    n.done = new Promise<void>((r) => (resolve = r)).then(() => {
      n.isDone = true;
    });
    const begin = () => {
      n.sub = drainBuffer(n.buffer, n.demand, max, n.drain)
        .pipe(
          tap((b) => {
            received.add(b.length);
            // a sink that delivers the batch it pulled (stream sinks) reads the size again below
            receivedBytes.add(knownBatchSize(b));
          }),
          n.op,
        )
        .subscribe({
          next: (d) => {
            n.hasDelivered = true;
            if (d.status === 'delivered') {
              sent.add(d.events.length);
              sentEventBytes.add(freshBatchSize(d.events));
              sentBytes.add(d.bytes);
            } else failed[d.status]!.add(d.events.length);
            // without acknowledgements the source's claims were released at buffer entry; what is
            // left are the buffer's own (a disk buffer deletes what its sink settled)
            settleAll(d.events, d.status);
          },
          error: (err: unknown) => {
            telemetry.counter('component_errors_total', { error_type: 'sink_failed', stage: 'sending' }).add();
            this.fail(n, err, !n.hasDelivered);
            resolve();
          },
          complete: resolve,
        });
    };
    if (after) void after.then(begin);
    else begin();
  }

  /** Logs and records a source or sink failure; one that never produced anything failed to start. */
  private fail(n: SourceNode | SinkNode, err: unknown, atStart: boolean): void {
    const error = err instanceof Error ? err.message : String(err);
    const kind = n.kind;
    n.ctx.log.error(atStart ? `${kind === 'source' ? 'Source' : 'Sink'} failed to start.` : `${kind === 'source' ? 'Source' : 'Sink'} failed.`, { error });
    const failure: ComponentFailure = { id: n.cfg.id, kind, type: n.cfg.def.type, error, atStart };
    this.failureList.push(failure);
    this.failed.next(failure);
  }

  private updateUtilization(): void {
    for (const n of this.nodes.values()) {
      if (n.kind !== 'sink') continue;
      const idle = Math.min(n.drain.idleMs, 5000);
      n.drain.idleMs = 0;
      n.ctx.telemetry.gauge('utilization').set(1 - idle / 5000);
    }
  }

  /** Runs every enabled sink health check; resolves with the sinks that failed and why. */
  healthchecks(): Promise<HealthcheckFailure[]> {
    return this.config ? runHealthchecks(this.config, this.registry, this.opts.log) : Promise.resolve([]);
  }

  /**
   * Graceful stop: sources stop, transforms flush, sinks drain their buffers. Resolves true when
   * everything drained in time; false when the deadline passed or `force` settled first. A drain
   * still running after DRAIN_NOTICE_MS is logged once, with what it waits for.
   */
  async stop(opts: StopOptions | number = {}): Promise<boolean> {
    const { deadlineMs, force } = typeof opts === 'number' ? { deadlineMs: opts, force: undefined } : opts;
    if (this.stopping) return true;
    this.stopping = true;
    clearInterval(this.utilizationTimer);
    for (const n of this.nodes.values()) if (n.kind === 'source') {
      n.stop$.next();
      n.stop$.complete();
    }
    const sinks = [...this.nodes.values()].filter((n): n is SinkNode => n.kind === 'sink');
    const sinksDone = Promise.all(sinks.map((n) => n.done)).then(() => true);
    const notice = this.scheduler.schedule(() => this.drainNotice(sinks, deadlineMs), DRAIN_NOTICE_MS);
    let timer: NodeJS.Timeout | undefined;
    const ends: Promise<boolean>[] = [sinksDone];
    if (deadlineMs !== undefined) ends.push(new Promise<boolean>((r) => (timer = setTimeout(() => r(false), deadlineMs))));
    if (force) ends.push(force.then(() => false));
    const result = await Promise.race(ends);
    clearTimeout(timer);
    notice.unsubscribe();
    for (const n of this.nodes.values()) {
      n.sub?.unsubscribe();
      if (n.kind === 'sink') await n.buffer.dispose();
    }
    await this.pool?.close();
    return result;
  }

  /** Says what a long drain waits for: each sink not done, with its buffered and in-flight events, and the limit. */
  private drainNotice(sinks: readonly SinkNode[], deadlineMs: number | undefined): void {
    const waiting = sinks.filter((n) => !n.isDone).map((n) => {
      const m = { component_id: n.cfg.id };
      const inFlight = this.registry.sum('component_received_events_total', m) - this.registry.sum('component_sent_events_total', m) - this.registry.sum('component_discarded_events_total', m);
      return { id: n.cfg.id, events: n.buffer.length + Math.max(0, inFlight) };
    });
    if (waiting.length === 0) return;
    const events = waiting.reduce((t, w) => t + w.events, 0);
    const limit = deadlineMs === undefined ? 'no limit' : `forced after ${deadlineMs / 1000} s`;
    this.log.info(`Still draining after ${DRAIN_NOTICE_MS / 1000} s: waiting for ${waiting.length === 1 ? 'sink' : 'sinks'} ${waiting.map((w) => `"${w.id}" (${w.events} events)`).join(', ')}; ${limit}.`, {
      sinks: waiting.map((w) => w.id).join(','),
      events,
      graceful_shutdown_limit_secs: deadlineMs === undefined ? 'none' : deadlineMs / 1000,
    });
  }

  /**
   * Resolves when every current sink finished (all sources completed on their own and everything
   * drained). A reload replaces sinks, so the set is checked again after each wait and after any
   * reload in progress.
   */
  async whenFinished(): Promise<void> {
    for (;;) {
      const sinks = [...this.nodes.values()].filter((n): n is SinkNode => n.kind === 'sink');
      await Promise.all(sinks.map((n) => n.done));
      // a reload stops the sinks it rebuilds before it puts the new ones in: wait for it to settle
      if (this.pendingApplies > 0) {
        await this.applying;
        continue;
      }
      const now = [...this.nodes.values()].filter((n): n is SinkNode => n.kind === 'sink');
      if (now.length === sinks.length && now.every((n, i) => n === sinks[i] && n.done === sinks[i]!.done)) return;
    }
  }
}
