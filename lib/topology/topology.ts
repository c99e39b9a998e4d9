/**
 * The running topology: sources, transforms and sinks wired by their inputs. Sources and
 * transforms run synchronously up to the sink buffers; each sink pulls from its own buffer.
 * Reload rebuilds only what changed and keeps the rest running (sources keep their sockets).
 */
import { Subject, type Subscription, asyncScheduler, takeUntil, tap, type SchedulerLike, type OperatorFunction } from 'rxjs';
import type { ComponentContext, ComponentKind, SinkContext, SinkDef, SourceContext, SourceDef, TransformDef } from '../component.js';
import { type Delivery, type EventBatch, type RoutedBatch, batchSize, settleAll } from '../event.js';
import { AllGate, GateController } from '../gate.js';
import type { EdgeBuffer } from '../buffer/buffer.js';
import { type BufferContext, createBuffer } from '../buffer/index.js';
import type { BufferConfig } from '../config/shared.js';
import type { ComponentConfig, Config } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { LogRoot, Logger } from '../log.js';
import { ComponentTelemetry, type Counter, MetricsRegistry } from '../telemetry/registry.js';
import { DrainControl, drainBuffer } from './drain.js';
import { Fanout, type Port } from './fanout.js';
import { type Graph, buildGraph, downstreamSinks } from './graph.js';
import { runHealthchecks } from './healthcheck.js';

/** Builds the edge buffer of a sink (memory or disk; see lib/buffer). */
export type BufferFactory = (cfg: BufferConfig, ctx: BufferContext) => EdgeBuffer | Promise<EdgeBuffer>;

export interface TopologyOptions {
  readonly registry?: MetricsRegistry;
  readonly log: LogRoot;
  readonly scheduler?: SchedulerLike;
  readonly buffers?: BufferFactory;
}

interface Running {
  readonly cfg: ComponentConfig;
  readonly telemetry: ComponentTelemetry;
  readonly log: Logger;
}

interface SourceNode extends Running {
  readonly kind: 'source';
  readonly gate: AllGate;
  readonly stop$: Subject<void>;
  sub?: Subscription;
  done: Promise<void>;
}

interface TransformNode extends Running {
  readonly kind: 'transform';
  readonly port: Port & { upstreams: Set<Fanout> };
  input$: Subject<EventBatch>;
  replacing: boolean;
  sub?: Subscription;
}

interface SinkNode extends Running {
  readonly kind: 'sink';
  readonly port: Port & { upstreams: Set<Fanout> };
  readonly buffer: EdgeBuffer;
  readonly drain: DrainControl;
  readonly demand: GateController;
  readonly acks: boolean;
  sub?: Subscription;
  done: Promise<void>;
}

type Node = SourceNode | TransformNode | SinkNode;

const sameJSON = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class Topology {
  readonly registry: MetricsRegistry;
  private readonly scheduler: SchedulerLike;
  private readonly buffers: BufferFactory;
  private readonly nodes = new Map<string, Node>();
  private readonly fanouts = new Map<string, Fanout>();
  private config: Config | undefined;
  private graph: Graph | undefined;
  private stopping = false;
  private utilizationTimer: NodeJS.Timeout | undefined;
  private readonly log: Logger;

  constructor(private readonly opts: TopologyOptions) {
    this.registry = opts.registry ?? new MetricsRegistry();
    this.scheduler = opts.scheduler ?? asyncScheduler;
    this.buffers = opts.buffers ?? createBuffer;
    this.log = opts.log.logger();
  }

  get currentConfig(): Config | undefined {
    return this.config;
  }
  get components(): ReadonlyMap<string, { kind: ComponentKind; type: string; merges: boolean }> {
    const m = new Map<string, { kind: ComponentKind; type: string; merges: boolean }>();
    for (const [id, n] of this.nodes) m.set(id, { kind: n.kind, type: n.cfg.def.type, merges: !!(n.cfg.def as TransformDef).merges });
    return m;
  }
  /** Events held in a sink's buffer (tests, API). */
  bufferedEvents(sinkId: string): number {
    const n = this.nodes.get(sinkId);
    return n?.kind === 'sink' ? n.buffer.length : 0;
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

  private async apply(config: Config, graph: Graph) {
    const old = this.nodes;
    const added: string[] = [];
    const changed: string[] = [];
    const removed: string[] = [];
    for (const id of old.keys()) if (!graph.nodes.has(id)) removed.push(id);
    for (const [id, n] of graph.nodes) {
      const prev = old.get(id);
      if (!prev) added.push(id);
      else if (prev.kind !== n.config.kind || !sameJSON(prev.cfg.raw, n.config.raw) || (this.config && !sameJSON(this.config.globals, config.globals))) changed.push(id);
    }
    // Build everything new first: a component that fails to build leaves the running topology untouched.
    const built = new Map<string, Node>();
    const builtOps = new Map<string, OperatorFunction<EventBatch, EventBatch | RoutedBatch> | OperatorFunction<EventBatch, Delivery>>();
    const sinksDown = downstreamSinks(graph);
    const acksOf = (c: ComponentConfig) => {
      const own = (c.options.acknowledgements as { enabled?: boolean } | undefined)?.enabled;
      return own ?? config.globals.acknowledgements.enabled;
    };
    const buildProblems: ConfigError['problems'][number][] = [];
    const reusable = new Map<string, EdgeBuffer>();
    for (const id of [...added, ...changed]) {
      const cfg = graph.nodes.get(id)!.config;
      const telemetry = new ComponentTelemetry(this.registry, id, cfg.kind, cfg.def.type);
      const log = this.opts.log.logger({ component_id: id, component_kind: cfg.kind, component_type: cfg.def.type });
      const base: ComponentContext = { id, type: cfg.def.type, telemetry, log, globals: config.globals, scheduler: this.scheduler, registry: this.registry };
      try {
        if (cfg.kind === 'source') {
          built.set(id, { kind: 'source', cfg, telemetry, log, gate: new AllGate(), stop$: new Subject<void>(), done: Promise.resolve() });
        } else if (cfg.kind === 'transform') {
          const op = (cfg.def as TransformDef).build(cfg.options, base);
          builtOps.set(id, op);
          const node: TransformNode = { kind: 'transform', cfg, telemetry, log, port: undefined!, input$: new Subject(), replacing: false };
          (node as { port: TransformNode['port'] }).port = this.transformPort(node);
          built.set(id, node);
        } else {
          const acks = acksOf(cfg);
          const demand = new GateController(true);
          const ctx: SinkContext = { ...base, acknowledgements: acks, demand };
          const op = (cfg.def as SinkDef).build(cfg.options, ctx);
          builtOps.set(id, op);
          const prev = old.get(id);
          const bufCfg = cfg.options.buffer as BufferConfig;
          let buffer: EdgeBuffer;
          const prevBuf = prev?.kind === 'sink' ? (prev.cfg.options.buffer as BufferConfig) : undefined;
          if (prev?.kind === 'sink' && sameJSON(prevBuf, bufCfg)) {
            buffer = prev.buffer;
            reusable.set(id, buffer);
          } else if (prev?.kind === 'sink' && prevBuf!.type !== 'memory' && prevBuf!.type === bufCfg.type) {
            // one store per sink directory (LevelDB locks it): the running store stays, new limits apply at restart
            log.warn('disk buffer options change at the next restart; the running buffer is kept');
            buffer = prev.buffer;
            reusable.set(id, buffer);
          } else buffer = await this.buffers(bufCfg, { id, telemetry, log, globals: config.globals });
          const node: SinkNode = { kind: 'sink', cfg, telemetry, log, port: undefined!, buffer, drain: new DrainControl(), demand, acks, done: Promise.resolve() };
          (node as { port: SinkNode['port'] }).port = this.sinkPort(node);
          built.set(id, node);
        }
      } catch (err) {
        const e = err as Error & { optionPath?: string };
        buildProblems.push({ code: 'WEIR_ERR_CONFIG_OPTION', file: cfg.file, component: `${cfg.kind}s.${id}`, path: e.optionPath, message: e.message });
      }
    }
    if (buildProblems.length) throw new ConfigError(buildProblems);

    // Stop what goes away or changes: sources first, so nothing new enters while rewiring.
    const stopping = [...removed, ...changed];
    const waits: Promise<void>[] = [];
    for (const id of stopping) {
      const n = old.get(id)!;
      if (n.kind === 'source') {
        n.stop$.next();
        n.stop$.complete();
        // a removed source's output goes away: let it drain into it first; a changed source
        // keeps its outputs, so its old connections may finish while the new one listens
        if (removed.includes(id)) waits.push(n.done);
      }
    }
    await Promise.all(waits);
    const oldSinkDone = new Map<string, Promise<void>>();
    for (const id of stopping) {
      const n = old.get(id)!;
      if (n.kind === 'transform') {
        for (const f of n.port.upstreams) f.detach(n.port);
        n.replacing = true;
        n.input$.complete(); // flushes its state into its outputs, which stay attached downstream
      } else if (n.kind === 'sink') {
        for (const f of n.port.upstreams) f.detach(n.port);
        if (reusable.has(id)) {
          n.drain.detached = true;
          n.buffer.release();
        } else n.buffer.close();
        oldSinkDone.set(id, n.done);
      }
    }
    for (const id of removed) {
      const n = old.get(id)!;
      this.nodes.delete(id);
      if (n.kind === 'sink') void n.done.then(() => n.buffer.dispose());
    }
    for (const [id, n] of built) this.nodes.set(id, n);

    // Outputs: one fan-out per output id, kept across rebuilds so downstream stays attached.
    const liveOutputs = new Set<string>();
    for (const n of graph.nodes.values()) {
      for (const o of n.outputs) {
        liveOutputs.add(o.id);
        if (!this.fanouts.has(o.id)) {
          const t = this.nodes.get(o.component)!.telemetry;
          const tag = { output: o.name ?? '_default' };
          this.fanouts.set(o.id, new Fanout(o.id, t.counter('component_sent_events_total', tag), t.counter('component_sent_event_bytes_total', tag)));
        }
      }
    }
    for (const id of [...this.fanouts.keys()]) if (!liveOutputs.has(id)) this.fanouts.delete(id);

    // Wiring: attach every consumer port to exactly its resolved inputs.
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

    this.config = config;
    this.graph = graph;

    // Start consumers before producers: sinks, then transforms, then sources.
    for (const [id, n] of built) if (n.kind === 'sink') this.startSink(n, builtOps.get(id) as OperatorFunction<EventBatch, Delivery>, oldSinkDone.get(id));
    for (const [id, n] of built) if (n.kind === 'transform') this.startTransform(n, builtOps.get(id) as OperatorFunction<EventBatch, EventBatch | RoutedBatch>);
    this.updateGates(sinksDown);
    for (const n of built.values()) if (n.kind === 'source') this.startSource(n, sinksDown, acksOf);
    for (const id of removed) this.registry.forget(id);
    return { added, changed, removed };
  }

  private updateGates(sinksDown: Map<string, Set<string>>): void {
    for (const n of this.nodes.values()) {
      if (n.kind !== 'source') continue;
      const gates = [...(sinksDown.get(n.cfg.id) ?? [])].map((s) => (this.nodes.get(s) as SinkNode).buffer.gate);
      n.gate.setMembers(gates);
    }
  }

  private routeOutput(id: string, item: EventBatch | RoutedBatch, bytes?: number): void {
    if (Array.isArray(item)) this.fanouts.get(id)?.emit(item, bytes);
    else this.fanouts.get(`${id}.${item.output}`)?.emit(item.events, bytes);
  }

  private endOutputs(id: string): void {
    for (const f of this.fanouts.values()) if (f.id === id || f.id.startsWith(id + '.')) f.end();
  }

  private startSource(n: SourceNode, sinksDown: Map<string, Set<string>>, acksOf: (c: ComponentConfig) => boolean): void {
    const def = n.cfg.def as SourceDef;
    const downstream = [...(sinksDown.get(n.cfg.id) ?? [])];
    const acknowledgements = !!def.acknowledges && downstream.some((s) => acksOf(this.nodes.get(s)!.cfg));
    if (!def.acknowledges && downstream.some((s) => acksOf(this.nodes.get(s)!.cfg)))
      n.log.warn('source does not support end-to-end acknowledgements; silent data loss could occur');
    const ctx: SourceContext = {
      id: n.cfg.id,
      type: def.type,
      telemetry: n.telemetry,
      log: n.log,
      globals: this.config!.globals,
      scheduler: this.scheduler,
      registry: this.registry,
      out: n.gate,
      acknowledgements,
      shutdown$: n.stop$.asObservable(),
    };
    const received = n.telemetry.counter('component_received_events_total');
    const receivedBytes = n.telemetry.counter('component_received_event_bytes_total');
    const perBatch = n.telemetry.histogram('component_received_events_count');
    let resolve!: () => void;
    n.done = new Promise((r) => (resolve = r));
    const id = n.cfg.id;
    const finish = () => {
      if (this.nodes.get(id) === n) this.endOutputs(id);
      resolve();
    };
    try {
      const built = def.build(n.cfg.options, ctx);
      n.sub = (def.drainsOnShutdown ? built : built.pipe(takeUntil(n.stop$))).subscribe({
          next: (item) => {
            const events = Array.isArray(item) ? item : item.events;
            const bytes = batchSize(events);
            received.add(events.length);
            receivedBytes.add(bytes);
            perBatch.record(events.length);
            this.routeOutput(id, item, bytes);
          },
          error: (err: unknown) => {
            n.log.error('source failed', { error: (err as Error).message });
            n.telemetry.counter('component_errors_total', { error_type: 'source_failed', stage: 'receiving' }).add();
            finish();
          },
          complete: finish,
        });
    } catch (err) {
      n.log.error('source failed to start', { error: (err as Error).message });
      finish();
    }
  }

  private transformPort(n: TransformNode): TransformNode['port'] {
    const received = n.telemetry.counter('component_received_events_total');
    const receivedBytes = n.telemetry.counter('component_received_event_bytes_total');
    const upstreams = new Set<Fanout>();
    const ended = new Set<Fanout>();
    return {
      upstreams,
      push: (batch, bytes) => {
        received.add(batch.length);
        receivedBytes.add(bytes);
        n.input$.next(batch);
      },
      upstreamEnded: (f) => {
        ended.add(f);
        if ([...upstreams].every((u) => ended.has(u) || u.ended)) n.input$.complete();
      },
    };
  }

  private startTransform(n: TransformNode, op: OperatorFunction<EventBatch, EventBatch | RoutedBatch>): void {
    const id = n.cfg.id;
    n.sub = n.input$.pipe(op).subscribe({
      next: (item) => this.routeOutput(id, item),
      error: (err: unknown) => {
        n.log.error('transform failed', { error: (err as Error).message });
        n.telemetry.counter('component_errors_total', { error_type: 'transform_failed', stage: 'processing' }).add();
        if (!n.replacing) this.endOutputs(id);
      },
      complete: () => {
        if (!n.replacing) this.endOutputs(id);
      },
    });
  }

  private sinkPort(n: SinkNode): SinkNode['port'] {
    const upstreams = new Set<Fanout>();
    const ended = new Set<Fanout>();
    return {
      upstreams,
      push: (batch, bytes) => {
        // spec 01 §2.1: without acknowledgements a sink releases events when they enter its buffer
        if (!n.acks) settleAll(batch, 'delivered');
        n.buffer.push(batch, bytes);
      },
      upstreamEnded: (f) => {
        ended.add(f);
        if ([...upstreams].every((u) => ended.has(u) || u.ended)) n.buffer.close();
      },
    };
  }

  private startSink(n: SinkNode, op: OperatorFunction<EventBatch, Delivery>, after: Promise<void> | undefined): void {
    const def = n.cfg.def as SinkDef;
    const max = def.pullSize?.(n.cfg.options) ?? 1000;
    const received = n.telemetry.counter('component_received_events_total');
    const receivedBytes = n.telemetry.counter('component_received_event_bytes_total');
    const sent = n.telemetry.counter('component_sent_events_total');
    const sentEventBytes = n.telemetry.counter('component_sent_event_bytes_total');
    const sentBytes = n.telemetry.counter('component_sent_bytes_total');
    const failed: Record<string, Counter> = {
      errored: n.telemetry.counter('component_discarded_events_total', { intentional: 'false' }),
      rejected: n.telemetry.counter('component_discarded_events_total', { intentional: 'false' }),
    };
    let resolve!: () => void;
    n.done = new Promise((r) => (resolve = r));
    const begin = () => {
      n.sub = drainBuffer(n.buffer, n.demand, max, n.drain)
        .pipe(
          tap((b) => {
            received.add(b.length);
            receivedBytes.add(batchSize(b));
          }),
          op,
        )
        .subscribe({
          next: (d) => {
            if (d.status === 'delivered') {
              sent.add(d.events.length);
              sentEventBytes.add(batchSize(d.events));
              sentBytes.add(d.bytes);
            } else failed[d.status]!.add(d.events.length);
            // without acknowledgements the source's claims were released at buffer entry; what is
            // left are the buffer's own (a disk buffer deletes what its sink settled)
            settleAll(d.events, d.status);
          },
          error: (err: unknown) => {
            n.log.error('sink failed', { error: (err as Error).message });
            n.telemetry.counter('component_errors_total', { error_type: 'sink_failed', stage: 'sending' }).add();
            resolve();
          },
          complete: resolve,
        });
    };
    if (after) void after.then(begin);
    else begin();
  }

  private updateUtilization(): void {
    for (const n of this.nodes.values()) {
      if (n.kind !== 'sink') continue;
      const idle = Math.min(n.drain.idleMs, 5000);
      n.drain.idleMs = 0;
      n.telemetry.gauge('utilization').set(1 - idle / 5000);
    }
  }

  /** Runs every enabled sink health check; resolves with the ids that failed. */
  healthchecks(): Promise<string[]> {
    return this.config ? runHealthchecks(this.config, this.registry, this.opts.log) : Promise.resolve([]);
  }

  /**
   * Graceful stop: sources stop, transforms flush, sinks drain their buffers. Resolves true when
   * everything drained within the deadline (undefined = wait forever).
   */
  async stop(deadlineMs?: number): Promise<boolean> {
    if (this.stopping) return true;
    this.stopping = true;
    clearInterval(this.utilizationTimer);
    for (const n of this.nodes.values()) if (n.kind === 'source') {
      n.stop$.next();
      n.stop$.complete();
    }
    const sinksDone = Promise.all([...this.nodes.values()].filter((n): n is SinkNode => n.kind === 'sink').map((n) => n.done)).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const result = await (deadlineMs === undefined
      ? sinksDone
      : Promise.race([sinksDone, new Promise<boolean>((r) => (timer = setTimeout(() => r(false), deadlineMs)))]));
    clearTimeout(timer);
    for (const n of this.nodes.values()) {
      n.sub?.unsubscribe();
      if (n.kind === 'sink') await n.buffer.dispose();
    }
    return result;
  }

  /**
   * Resolves when every current sink finished (all sources completed on their own and everything
   * drained). A reload replaces sinks, so the set is checked again after each wait.
   */
  async whenFinished(): Promise<void> {
    for (;;) {
      const sinks = [...this.nodes.values()].filter((n): n is SinkNode => n.kind === 'sink');
      await Promise.all(sinks.map((n) => n.done));
      const now = [...this.nodes.values()].filter((n): n is SinkNode => n.kind === 'sink');
      if (now.length === sinks.length && now.every((n, i) => n === sinks[i] && n.done === sinks[i]!.done)) return;
    }
  }
}
