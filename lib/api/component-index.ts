/**
 * The components the API shows, read from the running topology's resolved graph.
 * Records are snapshots: a removed component is still described by the record it had.
 */
import type { Observable } from 'rxjs';
import type { ComponentKind } from '../component.js';
import type { Graph, OutputRef } from '../topology/graph.js';
import type { TapObserver } from '../topology/fanout.js';
import type { MetricsRegistry } from '../telemetry/registry.js';

/** What the API needs from a running topology (lib/topology/topology.ts satisfies it). */
export interface ApiTopology {
  readonly registry: MetricsRegistry;
  readonly currentGraph: Graph | undefined;
  readonly changes$: Observable<{ readonly added: readonly string[]; readonly changed: readonly string[]; readonly removed: readonly string[] }>;
  tapOutput(outputId: string, observer: TapObserver): (() => void) | undefined;
}

/** The schema's `SourceOutputType` values. */
export type SourceOutputType = 'LOG' | 'METRIC' | 'TRACE';

/** One component as the schema's `Source`, `Transform` or `Sink` objects see it. */
export interface ComponentRecord {
  readonly id: string;
  readonly kind: ComponentKind;
  readonly type: string;
  readonly outputs: readonly OutputRef[];
  readonly inputs: readonly OutputRef[];
}

const OUTPUT_TYPES: Record<string, SourceOutputType[]> = { log: ['LOG'], metric: ['METRIC'], any: ['LOG', 'METRIC'] };

/** A source's output types over all its outputs, in schema order (LOG, METRIC, TRACE). */
export function outputTypesOf(c: ComponentRecord): SourceOutputType[] {
  const set = new Set<SourceOutputType>();
  for (const o of c.outputs) for (const t of OUTPUT_TYPES[o.type] ?? []) set.add(t);
  return (['LOG', 'METRIC', 'TRACE'] as const).filter((t) => set.has(t));
}

/** Every component of a graph, in config order. */
export function recordsOf(graph: Graph | undefined): Map<string, ComponentRecord> {
  const out = new Map<string, ComponentRecord>();
  if (!graph) return out;
  for (const [id, n] of graph.nodes) out.set(id, { id, kind: n.config.kind, type: n.config.def.type, outputs: n.outputs, inputs: n.inputs });
  return out;
}

/** Read-only view of the current components with the relations the schema asks for. */
export class ComponentIndex {
  constructor(private readonly topology: ApiTopology) {}

  get all(): Map<string, ComponentRecord> {
    return recordsOf(this.topology.currentGraph);
  }
  get(id: string): ComponentRecord | undefined {
    const n = this.topology.currentGraph?.nodes.get(id);
    return n && { id, kind: n.config.kind, type: n.config.def.type, outputs: n.outputs, inputs: n.inputs };
  }
  ofKind(kind: ComponentKind): ComponentRecord[] {
    return [...this.all.values()].filter((c) => c.kind === kind);
  }
  /** The upstream components of `c` of one kind (a sink's or transform's `sources`/`transforms`). */
  inputsOfKind(c: ComponentRecord, kind: ComponentKind): ComponentRecord[] {
    const ids = new Set(c.inputs.map((i) => i.component));
    return [...ids].map((id) => this.get(id)).filter((r): r is ComponentRecord => r?.kind === kind);
  }
  /** Components of one kind that list `c`'s default output as an input. */
  consumersOfKind(c: ComponentRecord, kind: ComponentKind): ComponentRecord[] {
    return this.ofKind(kind).filter((r) => r.inputs.some((i) => i.component === c.id && i.name === undefined));
  }
}
