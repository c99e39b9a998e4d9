/**
 * The component graph: resolves `inputs` (with `*` wildcards and named outputs `id.name`) to
 * output ids and checks the wiring as Vector does. Every problem is collected.
 */
import type { DataType, OutputDecl } from '../component.js';
import type { ConfigProblem } from '../errors.js';
import { type ComponentConfig, type Config, SECTION } from '../config/load.js';
import { suggest } from '../config/suggest.js';

/** An output of a source or transform: `id` for the default output, `id.name` for named ones. */
export interface OutputRef {
  readonly component: string;
  readonly name: string | undefined;
  readonly id: string;
  readonly type: DataType;
}

export interface GraphNode {
  readonly config: ComponentConfig;
  readonly outputs: readonly OutputRef[];
  /** Resolved upstream outputs (transforms and sinks). */
  readonly inputs: readonly OutputRef[];
}

export interface Graph {
  readonly nodes: ReadonlyMap<string, GraphNode>;
  readonly warnings: readonly string[];
}

/** Outputs a component declares; the default output carries its input type for transforms. */
export function outputsOf(c: ComponentConfig): OutputRef[] {
  if (c.kind === 'sink') return [];
  const decls: OutputDecl[] = c.def.outputs ? c.def.outputs(c.options) : [{ type: c.kind === 'transform' ? c.def.input : 'log' }];
  return decls.map((d) => ({ component: c.id, name: d.name, id: d.name ? `${c.id}.${d.name}` : c.id, type: d.type }));
}

/** A glob (`*`, `?`, `[...]`, `[!...]`) as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      const close = glob.indexOf(']', i);
      if (close < 0) re += '\\[';
      else {
        re += '[' + glob.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
        i = close;
      }
    } else re += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

const isGlob = (s: string) => /[*?[]/.test(s);

const accepts = (consumer: DataType, produced: DataType) => consumer === 'any' || produced === 'any' || consumer === produced;

/** Resolves and checks the graph. */
export function buildGraph(config: Config): { graph?: Graph; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const comps = [...config.components.values()];
  const outputs = new Map<string, OutputRef>();
  // candidate order: source outputs first, then transforms, each in config order, as Vector matches them
  for (const kind of ['source', 'transform'] as const) {
    for (const c of comps) {
      if (c.kind !== kind) continue;
      for (const o of outputsOf(c)) {
        if (o.name === '_default') problems.push({ code: 'WEIR_ERR_CONFIG_GRAPH', file: c.file, component: `${SECTION[c.kind]}.${c.id}`, message: 'an output must not be named "_default" (reserved)' });
        outputs.set(o.id, o);
      }
    }
  }
  const wildcardRelaxed = config.globals.wildcard_matching === 'relaxed';

  const nodes = new Map<string, GraphNode>();
  for (const c of comps) {
    const where = `${SECTION[c.kind]}.${c.id}`;
    const resolved: OutputRef[] = [];
    const seen = new Set<string>();
    const inputs = c.kind === 'source' ? [] : (c.options.inputs ?? []);
    const want: DataType = c.kind === 'source' ? 'any' : c.def.input;
    inputs.forEach((input, i) => {
      const loc = { code: 'WEIR_ERR_CONFIG_INPUTS' as const, file: c.file, component: where, path: `inputs[${i}]` };
      let matches: OutputRef[];
      if (isGlob(input)) {
        const re = globToRegExp(input);
        matches = [...outputs.values()].filter((o) => o.component !== c.id && re.test(o.id));
        if (matches.length === 0) {
          if (!wildcardRelaxed) problems.push({ ...loc, message: `wildcard "${input}" matches no source or transform output; outputs: ${[...outputs.keys()].join(', ') || 'none'}` });
          return;
        }
      } else {
        const o = outputs.get(input);
        if (!o) {
          const target = config.components.get(input.split('.')[0]!);
          let why: string;
          const meant = suggest(input, outputs.keys());
          const hint = meant ? ` (did you mean "${meant}"?)` : '';
          if (target?.kind === 'sink') why = `"${input}" is a sink; inputs must name sources or transforms`;
          else if (target && input.includes('.')) why = `component "${target.id}" has no output named "${input.slice(target.id.length + 1)}"${hint}; its outputs: ${outputsOf(target).map((x) => x.id).join(', ')}`;
          else if (target) why = `component "${input}" has only named outputs: ${outputsOf(target).map((x) => x.id).join(', ')}`;
          else why = `"${input}" doesn't match any component${hint}; known outputs: ${[...outputs.keys()].join(', ') || 'none'}`;
          problems.push({ ...loc, message: why });
          return;
        }
        if (o.component === c.id) {
          problems.push({ ...loc, message: `a component cannot take its own output "${input}" as input` });
          return;
        }
        matches = [o];
      }
      for (const m of matches) {
        if (seen.has(m.id)) {
          if (!isGlob(input)) problems.push({ ...loc, message: `input "${m.id}" is listed more than once` });
          continue;
        }
        seen.add(m.id);
        if (!accepts(want, m.type)) {
          problems.push({ ...loc, message: `data type mismatch: "${m.id}" emits ${m.type} events but ${c.def.type} accepts only ${want} events` });
          continue;
        }
        resolved.push(m);
      }
    });
    nodes.set(c.id, { config: c, outputs: outputsOf(c), inputs: resolved });
  }

  if (!comps.some((c) => c.kind === 'source')) problems.push({ code: 'WEIR_ERR_CONFIG_GRAPH', message: 'no sources defined; a pipeline needs at least one source' });
  if (!comps.some((c) => c.kind === 'sink')) problems.push({ code: 'WEIR_ERR_CONFIG_GRAPH', message: 'no sinks defined; a pipeline needs at least one sink' });

  // cycle detection over transform edges (DFS with colours)
  const colour = new Map<string, 0 | 1 | 2>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string) => {
    colour.set(id, 1);
    stack.push(id);
    for (const inp of nodes.get(id)?.inputs ?? []) {
      const up = inp.component;
      const c = colour.get(up) ?? 0;
      if (c === 1) {
        const cycle = stack.slice(stack.indexOf(up)).concat(up);
        const key = [...cycle].sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          const node = nodes.get(up)!.config;
          problems.push({ code: 'WEIR_ERR_CONFIG_CYCLE', file: node.file, component: `${SECTION[node.kind]}.${up}`, path: 'inputs', message: `cycle detected: ${cycle.reverse().join(' -> ')}` });
        }
      } else if (c === 0) visit(up);
    }
    stack.pop();
    colour.set(id, 2);
  };
  for (const id of nodes.keys()) if ((colour.get(id) ?? 0) === 0) visit(id);

  // outputs nobody consumes: a warning, as in Vector
  const consumed = new Set<string>();
  for (const n of nodes.values()) for (const i of n.inputs) consumed.add(i.id);
  for (const o of outputs.values()) if (!consumed.has(o.id)) warnings.push(`output "${o.id}" has no consumers`);

  // options Vector accepts and ignores: accepted, so a Vector config runs unchanged, and said once
  for (const c of comps) {
    const ignored = c.kind === 'sink' ? (c.options.healthcheck as { ignored_uri?: string } | undefined)?.ignored_uri : undefined;
    if (ignored !== undefined) warnings.push(`sinks.${c.id}.healthcheck.uri has no effect: the health check of a ${c.def.type} sink queries no URI (Vector ignores it too)`);
  }

  if (problems.length) return { problems };
  return { graph: { nodes, warnings }, problems };
}

/** Sinks reachable downstream of each component (for backpressure gates and acknowledgements). */
export function downstreamSinks(graph: Graph): Map<string, Set<string>> {
  const consumers = new Map<string, string[]>();
  for (const n of graph.nodes.values()) for (const i of n.inputs) {
    const list = consumers.get(i.component) ?? [];
    list.push(n.config.id);
    consumers.set(i.component, list);
  }
  const memo = new Map<string, Set<string>>();
  const walk = (id: string): Set<string> => {
    const m = memo.get(id);
    if (m) return m;
    const out = new Set<string>();
    memo.set(id, out);
    const node = graph.nodes.get(id)!;
    if (node.config.kind === 'sink') out.add(id);
    for (const c of consumers.get(id) ?? []) for (const s of walk(c)) out.add(s);
    return out;
  };
  for (const id of graph.nodes.keys()) walk(id);
  return memo;
}
