/**
 * Which parts of a graph run in pipeline workers (docs/threads.md): straight chains from a
 * newline-framed stream `socket` source through `remap`/`filter` transforms to an `http` sink with
 * a memory buffer, every link with one consumer. Anything else stays on the main thread.
 */
import type { ComponentConfig } from '../config/load.js';
import type { Graph } from '../topology/graph.js';

/** One threaded segment, by component id. */
export interface SegmentPlan {
  readonly source: string;
  readonly transforms: readonly string[];
  readonly sink: string;
  /** Changes when any member's options or the chain change: the source is then rebuilt. */
  readonly signature: string;
}

/** Transforms that keep no state across events and have no output a segment could not carry. */
const STATELESS = new Set(['remap', 'filter']);

const opts = (c: ComponentConfig) => c.options as Record<string, unknown>;

/** A source whose input can be cut at newlines before it is decoded. */
function isLineStreamSource(c: ComponentConfig): boolean {
  if (c.kind !== 'source' || c.def.type !== 'socket') return false;
  const o = opts(c) as { mode?: string; framing?: { method?: string }; decoding?: { codec?: string }; tls?: { client_metadata_key?: string } };
  if (o.mode !== 'tcp' && o.mode !== 'unix_stream') return false;
  const framing = o.framing?.method ?? (o.decoding?.codec === 'native' ? 'length_delimited' : 'newline_delimited');
  return framing === 'newline_delimited' && o.tls?.client_metadata_key === undefined;
}

function isWorkerTransform(c: ComponentConfig): boolean {
  return c.kind === 'transform' && STATELESS.has(c.def.type) && !(c.def.type === 'remap' && opts(c).reroute_dropped === true);
}

function isWorkerSink(c: ComponentConfig): boolean {
  return c.kind === 'sink' && c.def.type === 'http' && (opts(c).buffer as { type?: string } | undefined)?.type === 'memory';
}

/** The segments of a graph, by source id. */
export function planSegments(graph: Graph): Map<string, SegmentPlan> {
  const consumers = new Map<string, string[]>();
  for (const [id, n] of graph.nodes) for (const i of n.inputs) consumers.set(i.id, [...(consumers.get(i.id) ?? []), id]);
  const plans = new Map<string, SegmentPlan>();
  for (const [id, n] of graph.nodes) {
    if (!isLineStreamSource(n.config) || n.outputs.length !== 1) continue;
    const transforms: string[] = [];
    let at = id;
    for (;;) {
      const next = consumers.get(at) ?? [];
      if (next.length !== 1) break;
      const c = graph.nodes.get(next[0]!)!;
      if (c.inputs.length !== 1) break;
      if (isWorkerSink(c.config)) {
        const members = [id, ...transforms, c.config.id];
        const signature = JSON.stringify(members.map((m) => [m, graph.nodes.get(m)!.config.raw]));
        plans.set(id, { source: id, transforms, sink: c.config.id, signature });
        break;
      }
      // a transform's named outputs (remap without reroute has none) would have to stay unconsumed
      if (!isWorkerTransform(c.config) || c.outputs.length !== 1) break;
      transforms.push(c.config.id);
      at = c.config.id;
    }
  }
  return plans;
}

/** The options of a segment's source and sink a worker needs (its framing, codec and encoder), nothing else. */
const WORKER_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  socket: ['decoding', 'framing', 'host_key', 'port_key', 'max_length'],
  http: ['encoding', 'framing', 'payload_prefix', 'payload_suffix'],
};

/** What a worker gets of a member's validated options: for sources and sinks only its codec's. */
export function workerOptions(c: ComponentConfig): unknown {
  const keep = c.kind === 'transform' ? undefined : WORKER_OPTIONS[c.def.type];
  if (!keep) return c.options;
  const o = opts(c);
  return Object.fromEntries(keep.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}
