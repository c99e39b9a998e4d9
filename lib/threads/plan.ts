/**
 * Which parts of a graph run in pipeline workers (docs/threads.md): straight chains from a source
 * whose newline-framed byte stream a worker can decode, through transforms a worker can run, to a
 * sink whose encoder a worker can run, with a memory buffer, every link with one consumer. Each
 * component definition says what it can do (`workerDecoding`, `runsInWorker`, `workerEncoding`);
 * anything else stays on the main thread.
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

/** The only framing a segment cuts pieces at (the main thread splits reads at their last newline). */
const SEGMENT_FRAMING = 'newline_delimited';

/** A source whose input can be cut at newlines before it is decoded. */
function isLineStreamSource(c: ComponentConfig): boolean {
  if (c.kind !== 'source') return false;
  return c.def.workerDecoding?.(c.options)?.framing === SEGMENT_FRAMING;
}

function isWorkerTransform(c: ComponentConfig): boolean {
  return c.kind === 'transform' && c.def.runsInWorker?.(c.options) === true;
}

function isWorkerSink(c: ComponentConfig): boolean {
  // a disk buffer (alone or as the overflow of a chain) would have to store encoded records, stale after a change of the encoding
  return c.kind === 'sink' && c.options.buffer?.type === 'memory' && !c.options.buffer.overflow && c.def.workerEncoding?.(c.options) !== undefined;
}

/** Whether a source's decoding or a sink's encoding is only a copy of each event's message. */
function copiesMessage(c: ComponentConfig): boolean {
  const w = c.kind === 'source' ? c.def.workerDecoding?.(c.options) : c.kind === 'sink' ? c.def.workerEncoding?.(c.options) : undefined;
  return w?.copiesMessage === true;
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
        // nothing worth moving: crossing to a worker and back costs more than the copy it would spread
        if (transforms.length === 0 && copiesMessage(n.config) && copiesMessage(c.config)) break;
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

/** What a worker gets of a member's validated options: for sources and sinks only their codec's. */
export function workerOptions(c: ComponentConfig): unknown {
  const keep = c.kind === 'source' ? c.def.workerDecoding?.(c.options)?.options : c.kind === 'sink' ? c.def.workerEncoding?.(c.options)?.options : undefined;
  if (!keep) return c.options;
  const o = c.options as Record<string, unknown>;
  return Object.fromEntries(keep.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}
