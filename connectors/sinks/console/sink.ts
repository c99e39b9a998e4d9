/**
 * The `console` sink: each batch encoded and framed (newline by default; NUL for gelf) into one
 * write. A batch is delivered when the stream accepted its bytes; while the stream's buffer is
 * full the demand gate stays closed, so events wait in the edge buffer.
 */
import type { Writable } from 'node:stream';
import type { OperatorFunction } from 'rxjs';
import { createBatchEncoder } from '../../../lib/codecs/index.js';
import { deliveriesOf, reportEncodeFailures, serialWriter, writeAndDrain } from '../../shared/stream-writer.js';
import { SinkEvents } from '../../shared/sink-events.js';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import type { ConsoleSinkConfig } from './config.js';

/** Builds the sink over `out` (the configured target unless a test passes a stream). */
export function buildConsoleSink(config: ConsoleSinkConfig, ctx: SinkContext, out?: Writable): OperatorFunction<EventBatch, Delivery> {
  const stream: Writable = out ?? (config.target === 'stderr' ? process.stderr : process.stdout);
  const encoder = createBatchEncoder(config.encoding, config.framing, ctx.globals.log_schema);
  const events = new SinkEvents(ctx);
  return serialWriter(ctx, {
    async write(batch) {
      const encoded = encoder.encode(batch);
      reportEncodeFailures(events, encoded.failed, encoded.reason);
      if (encoded.bytes.length > 0) await writeAndDrain(stream, encoded.bytes);
      return deliveriesOf(encoded, encoded.bytes.length);
    },
  });
}
