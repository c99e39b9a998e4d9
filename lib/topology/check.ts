/**
 * Build-time checks without running anything (`weir validate`): the graph, then every
 * component's factory with a throwaway context. Factories compile conditions, templates and
 * programs, so their errors surface here with the component and option path.
 */
import { Subject, asyncScheduler } from 'rxjs';
import type { ComponentContext, SinkDef, SourceDef, TransformDef } from '../component.js';
import type { Config } from '../config/load.js';
import { SECTION } from '../config/load.js';
import type { ConfigProblem } from '../errors.js';
import { GateController, OPEN_GATE } from '../gate.js';
import { silentLogger } from '../log.js';
import { ComponentTelemetry, MetricsRegistry } from '../telemetry/registry.js';
import { type Graph, buildGraph } from './graph.js';

export function checkConfig(config: Config): { graph?: Graph; problems: ConfigProblem[] } {
  const { graph, problems } = buildGraph(config);
  const registry = new MetricsRegistry();
  for (const c of config.components.values()) {
    const ctx: ComponentContext = {
      id: c.id,
      type: c.def.type,
      telemetry: new ComponentTelemetry(registry, c.id, c.kind, c.def.type),
      log: silentLogger,
      globals: config.globals,
      scheduler: asyncScheduler,
      registry,
    };
    try {
      if (c.kind === 'source') (c.def as SourceDef).build(c.options, { ...ctx, out: OPEN_GATE, acknowledgements: false, shutdown$: new Subject<void>() });
      else if (c.kind === 'transform') (c.def as TransformDef).build(c.options, ctx);
      else (c.def as SinkDef).build(c.options, { ...ctx, acknowledgements: false, demand: new GateController() });
    } catch (err) {
      const e = err as Error & { optionPath?: string };
      problems.push({ code: 'WEIR_ERR_CONFIG_OPTION', file: c.file, component: `${SECTION[c.kind]}.${c.id}`, path: e.optionPath, message: e.message });
    }
  }
  return problems.length ? { problems } : { graph, problems };
}
