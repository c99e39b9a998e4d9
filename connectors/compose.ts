/**
 * Programmatic composition without the daemon: every catalog component as a function taking its
 * options (validated and defaulted by the same schema as in config files) and returning an
 * Observable (sources) or an OperatorFunction (transforms, sinks).
 */
import { type Observable, type OperatorFunction, type SchedulerLike, Subject, asyncScheduler, pipe, tap } from 'rxjs';
import * as v from 'valibot';
import { components } from './index.js';
import type { ComponentContext, SinkDef, SourceDef, TransformDef } from '../lib/component.js';
import { mapIssue } from '../lib/config/issues.js';
import { type GlobalOptions, defaultGlobals } from '../lib/config/global.js';
import { ConfigError } from '../lib/errors.js';
import { type Delivery, type EventBatch, type RoutedBatch, settleAll } from '../lib/event.js';
import { type Gate, GateController, OPEN_GATE } from '../lib/gate.js';
import { type Logger, silentLogger } from '../lib/log.js';
import { ComponentTelemetry, MetricsRegistry } from '../lib/telemetry/registry.js';

/** What a caller may set about the environment a component runs in. */
export interface ComposeContext {
  id?: string;
  scheduler?: SchedulerLike;
  registry?: MetricsRegistry;
  log?: Logger;
  globals?: Partial<GlobalOptions>;
  /** Sources: the backpressure gate to honour (default: always open). */
  out?: Gate;
  /** Sources: completes the source when it emits. */
  shutdown$?: Observable<void>;
}

type Options = Record<string, unknown>;

function parseOptions(kind: string, def: { type: string; schema: v.GenericSchema }, options: Options, withInputs: boolean): Record<string, unknown> {
  const raw = { ...options, type: def.type, ...(withInputs && options.inputs === undefined ? { inputs: ['_'] } : {}) };
  const r = v.safeParse(def.schema, raw);
  if (!r.success) {
    throw new ConfigError(
      r.issues.flatMap((i) => mapIssue(def.schema, i)).map((m) => ({ code: 'WEIR_ERR_CONFIG_OPTION' as const, component: `${kind}.${def.type}`, path: m.path || undefined, message: m.message })),
    );
  }
  return r.output as Record<string, unknown>;
}

function baseContext(def: { type: string; kind: 'source' | 'transform' | 'sink' }, c: ComposeContext): ComponentContext {
  const registry = c.registry ?? new MetricsRegistry();
  const id = c.id ?? def.type;
  return {
    id,
    type: def.type,
    telemetry: new ComponentTelemetry(registry, id, def.kind, def.type),
    log: c.log ?? silentLogger,
    globals: { ...defaultGlobals(), ...c.globals },
    scheduler: c.scheduler ?? asyncScheduler,
    registry,
  };
}

export type SourceFactory = (options?: Options, ctx?: ComposeContext) => Observable<EventBatch | RoutedBatch>;
export type TransformFactory = (options?: Options, ctx?: ComposeContext) => OperatorFunction<EventBatch, EventBatch | RoutedBatch>;
export type SinkFactory = (options?: Options, ctx?: ComposeContext) => OperatorFunction<EventBatch, Delivery>;

/** Source factories by type: `sources.demo_logs({ count: 10, interval: 0 })`. */
export const sources: Record<string, SourceFactory> = {};
/** Transform operators by type: `transforms.filter({ condition: { type: 'is_log' } })`. */
export const transforms: Record<string, TransformFactory> = {};
/** Sink operators by type: `sinks.console({ encoding: { codec: 'json' } })`; settles acknowledgements itself. */
export const sinks: Record<string, SinkFactory> = {};

for (const def of components) {
  if (def.kind === 'source') {
    sources[def.type] = (options = {}, c = {}) =>
      (def as SourceDef).build(parseOptions('sources', def, options, false), {
        ...baseContext(def, c),
        out: c.out ?? OPEN_GATE,
        acknowledgements: false,
        shutdown$: c.shutdown$ ?? new Subject<void>(),
      });
  } else if (def.kind === 'transform') {
    transforms[def.type] = (options = {}, c = {}) => (def as TransformDef).build(parseOptions('transforms', def, options, true), baseContext(def, c));
  } else {
    sinks[def.type] = (options = {}, c = {}) =>
      pipe(
        (def as SinkDef).build(parseOptions('sinks', def, options, true), { ...baseContext(def, c), acknowledgements: true, demand: new GateController() }),
        tap((d: Delivery) => settleAll(d.events, d.status)),
      );
  }
}
