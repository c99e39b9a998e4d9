/**
 * Internal events of the `kafka` source: Vector's librdkafka statistics that weir's client can
 * stand for (`kafka_consumed_messages_total`, `_bytes_total`, `kafka_consumer_lag`), and the
 * errors of committing offsets and of the consumer.
 */
import type { ComponentContext } from '../../../lib/component.js';
import type { Gauge } from '../../../lib/telemetry/registry.js';

export interface KafkaSourceEvents {
  consumed(bytes: number): void;
  /** Lag of one partition: records between the delivered offset and the end of the log. */
  lag(topic: string, partition: number, lag: number): void;
  commitFailed(err: string): void;
  consumerFailed(err: string): void;
  /** A batch was not delivered: the partition's offset stays before it for the rest of the run. */
  offsetHeld(topic: string, partition: number, offset: bigint, status: string): void;
  /** Events in flight for a partition given up were not all delivered within drain_timeout_ms. */
  drainTimedOut(topic: string, partition: number, pending: number): void;
}

export function kafkaSourceEvents(ctx: Pick<ComponentContext, 'telemetry' | 'log'>): KafkaSourceEvents {
  const t = ctx.telemetry;
  const consumed = t.counter('kafka_consumed_messages_total');
  const consumedBytes = t.counter('kafka_consumed_messages_bytes_total');
  const commitErrors = t.counter('component_errors_total', { error_code: 'kafka_offset_update', error_type: 'reader_failed', stage: 'sending' });
  const readErrors = t.counter('component_errors_total', { error_code: 'reading_message', error_type: 'reader_failed', stage: 'receiving' });
  const lags = new Map<string, Gauge>();
  return {
    consumed(bytes) {
      consumed.add(1);
      consumedBytes.add(bytes);
    },
    lag(topic, partition, lag) {
      const key = `${topic}\0${partition}`;
      let g = lags.get(key);
      if (g === undefined) lags.set(key, (g = t.gauge('kafka_consumer_lag', { topic_id: topic, partition_id: String(partition) })));
      g.set(lag);
    },
    commitFailed(err) {
      commitErrors.add();
      ctx.log.error('Unable to update consumer offset.', { error_code: 'kafka_offset_update', error: err });
    },
    consumerFailed(err) {
      readErrors.add();
      ctx.log.error('Failed to read message.', { error_code: 'reading_message', error: err });
    },
    offsetHeld(topic, partition, offset, status) {
      ctx.log.warn('Events were not delivered; the partition offset stays before them until a restart reads them again.', { topic, partition, offset: String(offset), status });
    },
    drainTimedOut(topic, partition, pending) {
      ctx.log.warn('Events of a revoked partition were not delivered within drain_timeout_ms; its offset is committed as far as delivered.', { topic, partition, pending });
    },
  };
}
