/**
 * Builds a sink's edge buffer from its `buffer.*` options: memory, disk (format
 * version 2) or disk_v1. Sinks only see {@link EdgeBuffer}.
 */
import type { ComponentContext } from '../component.js';
import type { BufferConfig } from '../config/options/buffer.js';
import { BufferMetrics, type EdgeBuffer } from './buffer.js';
import { diskV1Format } from './disk-v1.js';
import { DiskBuffer, diskBufferPath, diskV2Format } from './disk.js';
import { MemoryBuffer } from './memory.js';

export { BufferMetrics, type EdgeBuffer, type WhenFull } from './buffer.js';
export { DiskBuffer, diskBufferPath } from './disk.js';
export { MemoryBuffer } from './memory.js';

/** What a buffer needs from its sink's context. */
export type BufferContext = Pick<ComponentContext, 'id' | 'telemetry' | 'log' | 'globals'>;

/**
 * Creates the buffer in front of sink `ctx.id`. Disk buffers open (or create) their store under
 * `globals.data_dir` and count what a previous run left there; rejects with an Error naming the
 * directory and the sink when it cannot be created or opened (unwritable data_dir, store locked by
 * another process). One open disk buffer per sink id and data_dir at a time: LevelDB locks the
 * store, so on reload keep the old buffer or `dispose()` it before creating the new one.
 */
export async function createBuffer(config: BufferConfig, ctx: BufferContext): Promise<EdgeBuffer> {
  const metrics = new BufferMetrics(ctx.telemetry);
  // the limit beside the fill (Vector's gauges), so a reader of the metrics can show how full it is
  if (config.type === 'memory') ctx.telemetry.gauge('buffer_max_event_size').set(config.max_events);
  else if (config.max_size !== undefined) ctx.telemetry.gauge('buffer_max_byte_size').set(config.max_size);
  if (config.type === 'memory') return new MemoryBuffer(config.max_events, config.when_full, metrics);
  const format = config.type === 'disk' ? diskV2Format : diskV1Format;
  if (config.max_size === undefined) throw new Error(`sink "${ctx.id}": buffer.max_size is required when buffer.type is "${config.type}"`);
  return DiskBuffer.open({
    dir: diskBufferPath(ctx.globals.data_dir, format.version, ctx.id),
    sinkId: ctx.id,
    maxSize: config.max_size,
    whenFull: config.when_full,
    metrics,
    decodeErrors: ctx.telemetry.counter('component_errors_total', { error_type: 'decode_failed', stage: 'receiving' }),
    writeErrors: ctx.telemetry.counter('component_errors_total', { error_type: 'write_failed', stage: 'sending' }),
    log: ctx.log.child({ component_id: ctx.id, buffer: config.type }),
    format,
  });
}
