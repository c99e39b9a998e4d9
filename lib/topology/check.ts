/**
 * Build-time checks without running anything (`weir validate`): the graph, then every
 * component's factory with a throwaway context. Factories compile conditions, templates and
 * programs, so their errors surface here with the component and option path.
 */
import { componentContext, sinkContext, sourceContext } from '../component-context.js';
import type { ComponentConfig, Config } from '../config/load.js';
import { SECTION } from '../config/load.js';
import { buildProblem } from '../config/option-position.js';
import type { ConfigProblem } from '../errors.js';
import { MetricsRegistry } from '../telemetry/registry.js';
import { type Graph, buildGraph, outputsOf } from './graph.js';

/**
 * Checks the graph and builds every component. `stubs` (components that failed validation, with
 * their options as written) join the graph check only: their inputs are checked and their
 * outputs are known to others, so one run reports a typo in a sink's options and in its inputs.
 */
export function checkConfig(config: Config, stubs: ReadonlyMap<string, ComponentConfig> = new Map()): { graph?: Graph; problems: ConfigProblem[] } {
  const wired = new Map(config.components);
  for (const [id, stub] of stubs) {
    const usable = graphStub(stub);
    if (usable) wired.set(id, usable);
  }
  const { graph, problems } = buildGraph(wired.size === config.components.size ? config : { ...config, components: wired });
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

/**
 * A failed component as the graph check can take it: its `inputs` when they are a list of
 * strings (else none), and only when its outputs can be told from the options as written.
 */
export function graphStub(stub: ComponentConfig): ComponentConfig | undefined {
  const raw = stub.options as Record<string, unknown>;
  const inputs = Array.isArray(raw.inputs) && raw.inputs.every((i) => typeof i === 'string') ? (raw.inputs as string[]) : [];
  const c = { ...stub, options: { ...raw, inputs } } as ComponentConfig;
  try {
    outputsOf(c);
  } catch {
    return undefined;
  }
  return c;
}
