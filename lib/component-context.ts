/**
 * The one place component contexts are made: the topology, `weir validate`, programmatic
 * composition, tests and benchmarks all build them here, so every context has the same shape and
 * telemetry tags. Defaults suit use outside a daemon: a fresh registry, a silent log, the default
 * global options, the async scheduler, an open gate, no acknowledgements.
 */
import { NEVER, type Observable, type SchedulerLike, asyncScheduler } from 'rxjs';
import type { ComponentContext, ComponentKind, SinkContext, SourceContext, ThreadedIntake } from './component.js';
import { type GlobalOptions, defaultGlobals } from './config/global.js';
import { type Gate, GateController, OPEN_GATE } from './gate.js';
import { LogRoot, type Logger, silentLogger } from './log.js';
import { ComponentTelemetry, MetricsRegistry } from './telemetry/registry.js';

/** Who a component is and where it runs; all but `kind` and `type` have defaults. */
export interface ComponentContextOptions {
  readonly kind: ComponentKind;
  readonly type: string;
  /** Default: the type token. */
  readonly id?: string;
  /** Default: a fresh registry with the host and pid tags. */
  readonly registry?: MetricsRegistry;
  /** A logger as is, or a root to derive one tagged with the component (id, kind, type). Default: silent. */
  readonly log?: Logger | LogRoot;
  /** Laid over the defaults, so a test names only what it changes. */
  readonly globals?: Partial<GlobalOptions>;
  readonly scheduler?: SchedulerLike;
}

/** A component's context; telemetry is bound once here to the component's tags. */
export function componentContext(o: ComponentContextOptions): ComponentContext {
  const id = o.id ?? o.type;
  const registry = o.registry ?? new MetricsRegistry();
  return {
    id,
    type: o.type,
    telemetry: new ComponentTelemetry(registry, id, o.kind, o.type),
    log: o.log instanceof LogRoot ? o.log.logger({ component_id: id, component_kind: o.kind, component_type: o.type }) : (o.log ?? silentLogger),
    globals: { ...defaultGlobals(), ...o.globals },
    scheduler: o.scheduler ?? asyncScheduler,
    registry,
  };
}

/** What a source sees beyond the base context. */
export interface SourceContextOptions {
  /** Default: always open. */
  readonly out?: Gate;
  /** Default: false. */
  readonly acknowledgements?: boolean;
  /** Default: never fires (the source runs until unsubscribed). */
  readonly shutdown$?: Observable<void>;
  /** Default: none (the source decodes its input itself). */
  readonly threaded?: ThreadedIntake | undefined;
}

/** A source's context over `base`. */
export function sourceContext(base: ComponentContext, o: SourceContextOptions = {}): SourceContext {
  return { ...base, out: o.out ?? OPEN_GATE, acknowledgements: o.acknowledgements ?? false, shutdown$: o.shutdown$ ?? NEVER, threaded: o.threaded };
}

/** What a sink sees beyond the base context. */
export interface SinkContextOptions {
  /** Default: false (finalizers settle when events enter the buffer). */
  readonly acknowledgements?: boolean;
  /** Default: a fresh open gate. */
  readonly demand?: GateController;
}

/** A sink's context over `base`. */
export function sinkContext(base: ComponentContext, o: SinkContextOptions = {}): SinkContext {
  return { ...base, acknowledgements: o.acknowledgements ?? false, demand: o.demand ?? new GateController(true) };
}
