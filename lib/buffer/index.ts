/**
 * Builds a sink's edge buffer from its `buffer.*` options: memory, disk (format
 * version 2) or disk_v1, or a chain of them. Sinks only see {@link EdgeBuffer}.
 */
import type { ComponentContext } from '../component.js';
import type { BufferConfig, BufferStageConfig } from '../config/options/buffer.js';
import { BufferMetrics, type EdgeBuffer, type WhenFull } from './buffer.js';
import { type BufferStage, ChainedBuffer } from './chain.js';
import { diskV1Format } from './disk-v1.js';
import { DiskBuffer, diskBufferPath, diskV2Format } from './disk.js';
import { MemoryBuffer } from './memory.js';

export { BufferMetrics, type EdgeBuffer, type WhenFull } from './buffer.js';
export { type BufferStage, ChainedBuffer } from './chain.js';
export { DiskBuffer, diskBufferPath } from './disk.js';
export { MemoryBuffer } from './memory.js';

/** What a buffer needs from its sink's context. */
export type BufferContext = Pick<ComponentContext, 'id' | 'telemetry' | 'log' | 'globals'>;

/** The stages of a sink's `buffer` option, first to last (one for a single buffer). */
export function bufferStages(config: BufferConfig): readonly BufferStageConfig[] {
  const out: BufferStageConfig[] = [];
  for (let s: BufferConfig | undefined = config; s; s = s.overflow) out.push(s);
  return out;
}

/**
 * Creates the buffer in front of sink `ctx.id`: one stage, or a {@link ChainedBuffer} when
 * `buffer` lists several. Disk buffers open (or create) their store under
 * `globals.data_dir` and count what a previous run left there; rejects with an Error naming the
 * directory and the sink when it cannot be created or opened (unwritable data_dir, store locked by
 * another process). One open disk buffer per sink id and data_dir at a time: LevelDB locks the
 * store, so on reload keep the old buffer or `dispose()` it before creating the new one. A disk
 * stage of a chain uses the same store as a single disk buffer of that sink.
 */
export async function createBuffer(config: BufferConfig, ctx: BufferContext): Promise<EdgeBuffer> {
  const stages = bufferStages(config);
  if (stages.length === 1) return createStage(stages[0]!, 0, ctx);
  const built: BufferStage[] = [];
  try {
    for (let i = 0; i < stages.length; i++) {
      const buffer = await createStage(stages[i]!, i, ctx);
      const cfg = stages[i]!;
      const room = cfg.type === 'memory' ? () => Math.max(0, cfg.max_events - buffer.length) : () => (buffer.gate.isOpen ? Infinity : 0);
      built.push({ buffer, room });
    }
  } catch (err) {
    await Promise.all(built.map((s) => s.buffer.dispose().catch(() => undefined)));
    throw err;
  }
  return new ChainedBuffer(built);
}

/** One stage; `overflow` builds it as `block`, whose gate then says when it is full. */
async function createStage(config: BufferStageConfig, stage: number, ctx: BufferContext): Promise<EdgeBuffer> {
  // every buffer_* series carries its stage index, as Vector tags them
  const tags = { stage: String(stage) };
  const metrics = new BufferMetrics(ctx.telemetry, tags);
  const whenFull: WhenFull = config.when_full === 'overflow' ? 'block' : config.when_full;
  // the limit beside the fill (Vector's gauges), so a reader of the metrics can show how full it is
  if (config.type === 'memory') ctx.telemetry.gauge('buffer_max_event_size', tags).set(config.max_events);
  else if (config.max_size !== undefined) ctx.telemetry.gauge('buffer_max_byte_size', tags).set(config.max_size);
  if (config.type === 'memory') return new MemoryBuffer(config.max_events, whenFull, metrics);
  const format = config.type === 'disk' ? diskV2Format : diskV1Format;
  if (config.max_size === undefined) throw new Error(`sink "${ctx.id}": buffer.max_size is required when buffer.type is "${config.type}"`);
  return DiskBuffer.open({
    dir: diskBufferPath(ctx.globals.data_dir, format.version, ctx.id),
    sinkId: ctx.id,
    maxSize: config.max_size,
    whenFull,
    metrics,
    decodeErrors: ctx.telemetry.counter('component_errors_total', { error_type: 'decode_failed', stage: 'receiving' }),
    writeErrors: ctx.telemetry.counter('component_errors_total', { error_type: 'write_failed', stage: 'sending' }),
    log: ctx.log.child({ component_id: ctx.id, buffer: config.type }),
    format,
  });
}
