/**
 * Programmatic composition without the daemon: every catalog component as a function taking its
 * options (validated and defaulted by the same schema as in config files) and returning an
 * Observable (sources) or an OperatorFunction (transforms, sinks).
 */
import { type Observable, type OperatorFunction, type SchedulerLike, pipe, tap } from 'rxjs';
import * as v from 'valibot';
import { components } from './index.js';
import type { ComponentContext, ComponentDef } from '../lib/component.js';
import { componentContext, sinkContext, sourceContext } from '../lib/component-context.js';
import { mapIssue } from '../lib/config/issues.js';
import type { GlobalOptions } from '../lib/config/global.js';
import { ConfigError } from '../lib/errors.js';
import { type Delivery, type EventBatch, type RoutedBatch, settleAll } from '../lib/event.js';
import type { Gate } from '../lib/gate.js';
import type { Logger } from '../lib/log.js';
import type { MetricsRegistry } from '../lib/telemetry/registry.js';

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

function parseOptions<S extends v.GenericSchema>(kind: string, def: { type: string; schema: S }, options: Options, withInputs: boolean): v.InferOutput<S> {
  const raw = { ...options, type: def.type, ...(withInputs && options.inputs === undefined ? { inputs: ['_'] } : {}) };
  const r = v.safeParse(def.schema, raw);
  if (!r.success) {
    throw new ConfigError(
      r.issues.flatMap((i) => mapIssue(def.schema, i)).map((m) => ({ code: 'WEIR_ERR_CONFIG_OPTION' as const, component: `${kind}.${def.type}`, path: m.path || undefined, message: m.message })),
    );
  }
  return r.output;
}

const baseContext = (def: ComponentDef, c: ComposeContext): ComponentContext =>
  componentContext({ kind: def.kind, type: def.type, id: c.id, registry: c.registry, log: c.log, globals: c.globals, scheduler: c.scheduler });

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
      def.build(parseOptions('sources', def, options, false), sourceContext(baseContext(def, c), { out: c.out, shutdown$: c.shutdown$ }));
  } else if (def.kind === 'transform') {
    transforms[def.type] = (options = {}, c = {}) => def.build(parseOptions('transforms', def, options, true), baseContext(def, c));
  } else {
    sinks[def.type] = (options = {}, c = {}) =>
      pipe(
        def.build(parseOptions('sinks', def, options, true), sinkContext(baseContext(def, c), { acknowledgements: true })),
        tap((d: Delivery) => settleAll(d.events, d.status)),
      );
  }
}
