/**
 * `weir graph`: the topology of a configuration as Graphviz DOT or a Mermaid flowchart, drawn the
 * way `vector graph` draws it (sources trapezia, transforms diamonds, sinks inverted trapezia;
 * an edge from a named output carries the output's name as its label).
 */
import { catalog } from '../../connectors/index.js';
import { buildConfig, readConfigFiles } from '../../lib/config/load.js';
import type { ConfigSource } from '../../lib/config/paths.js';
import { type ConfigProblem, formatProblem } from '../../lib/errors.js';
import { type Graph, type GraphNode, buildGraph } from '../../lib/topology/graph.js';
import { EXIT_CONFIG } from './exit.js';

export type GraphFormat = 'dot' | 'mermaid';

const SHAPES = { source: 'trapezium', transform: 'diamond', sink: 'invtrapezium' } as const;
const KINDS = ['source', 'transform', 'sink'] as const;

/** Nodes of one kind, in the order the configuration declares them. */
const ofKind = (graph: Graph, kind: (typeof KINDS)[number]): GraphNode[] => [...graph.nodes.values()].filter((n) => n.config.kind === kind);

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The graph as DOT. */
export function renderDot(graph: Graph): string {
  let out = 'digraph {\n';
  for (const kind of KINDS) {
    for (const n of ofKind(graph, kind)) {
      out += `  ${quote(n.config.id)} [shape="${SHAPES[kind]}"]\n`;
      for (const i of n.inputs) {
        if (i.name !== undefined) out += `  ${quote(i.component)} -> ${quote(n.config.id)} [label=${quote(i.name)}]\n`;
        else out += `  ${quote(i.id)} -> ${quote(n.config.id)}\n`;
      }
    }
  }
  return out + '}';
}

/** Mermaid needs ids without spaces or punctuation; such an id is drawn under a quoted label of its own. */
const isPlain = (id: string) => /^[A-Za-z0-9_]+$/.test(id);
const mermaidId = (id: string) => (isPlain(id) ? id : id.replace(/[^A-Za-z0-9_]/g, '_'));
const mermaidLabel = (id: string) => (isPlain(id) ? id : `"${id.replace(/"/g, '#quot;')}"`);

/** The graph as a Mermaid flowchart. */
export function renderMermaid(graph: Graph): string {
  const open = { source: '[/', transform: '{', sink: '[\\' } as const;
  const close = { source: '/]', transform: '}', sink: '\\]' } as const;
  let out = 'flowchart TD;\n';
  const titles = { source: 'Sources', transform: 'Transforms', sink: 'Sinks' } as const;
  for (const kind of KINDS) {
    out += `\n  %% ${titles[kind]}\n`;
    for (const n of ofKind(graph, kind)) {
      const id = mermaidId(n.config.id);
      out += `  ${id}${open[kind]}${mermaidLabel(n.config.id)}${close[kind]}\n`;
      for (const i of n.inputs) {
        const from = mermaidId(i.component);
        out += i.name !== undefined ? `  ${from} -->|${i.name}| ${id}\n` : `  ${from} --> ${id}\n`;
      }
    }
  }
  return out;
}

export interface GraphOptions {
  readonly files: readonly (string | ConfigSource)[];
  readonly problems?: readonly ConfigProblem[];
  readonly format: GraphFormat;
}

/** Loads and wires the configuration without building any component; exit 0, or 78 with the problems on stderr. */
export function graphCommand(opts: GraphOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  const problems: ConfigProblem[] = [...(opts.problems ?? [])];
  const built = buildConfig(readConfigFiles(opts.files, process.env, problems), catalog);
  problems.push(...built.problems);
  const wired = built.config && problems.length === 0 ? buildGraph(built.config) : undefined;
  if (wired) problems.push(...wired.problems);
  if (!wired?.graph || problems.length > 0) {
    for (const p of problems) err.write(`${formatProblem(p)}\n`);
    return EXIT_CONFIG;
  }
  out.write((opts.format === 'mermaid' ? renderMermaid(wired.graph) : renderDot(wired.graph)) + '\n');
  return 0;
}
