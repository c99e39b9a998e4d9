/**
 * Build-time checks without running anything (`weir validate`): the graph, then every
 * component's factory with a throwaway context. Factories compile conditions, templates and
 * programs, so their errors surface here with the component and option path.
 */
import { componentContext, sinkContext, sourceContext } from '../component-context.js';
import type { Config } from '../config/load.js';
import { SECTION } from '../config/load.js';
import { buildProblem } from '../config/option-position.js';
import type { ConfigProblem } from '../errors.js';
import { MetricsRegistry } from '../telemetry/registry.js';
import { type Graph, buildGraph } from './graph.js';

export function checkConfig(config: Config): { graph?: Graph; problems: ConfigProblem[] } {
  const { graph, problems } = buildGraph(config);
  const registry = new MetricsRegistry();
  for (const c of config.components.values()) {
    const ctx = componentContext({ id: c.id, kind: c.kind, type: c.def.type, registry, globals: config.globals });
    try {
      if (c.kind === 'source') c.def.build(c.options, sourceContext(ctx));
      else if (c.kind === 'transform') c.def.build(c.options, ctx);
      else c.def.build(c.options, sinkContext(ctx));
    } catch (err) {
      problems.push(buildProblem(err, c.file, SECTION[c.kind], c.id));
    }
  }
  return problems.length ? { problems } : { graph, problems };
}
