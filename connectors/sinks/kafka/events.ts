/**
 * The `kafka` sink's share of Vector's librdkafka statistics, from what weir's client does:
 * records waiting for the broker's acknowledgement (`kafka_queue_messages`, `_bytes`), produce
 * requests sent (`kafka_requests_total`, `_bytes_total`), answers (`kafka_responses_total`) and the
 * records the broker acknowledged (`kafka_produced_messages_total`, `_bytes_total`).
 */
import type { ComponentContext } from '../../../lib/component.js';

export interface KafkaSinkEvents {
  /** A produce request of `records` records and `bytes` bytes went out. */
  sent(records: number, bytes: number): void;
  /** Its answer came back; `acknowledged` when the broker took the records. */
  answered(records: number, bytes: number, acknowledged: boolean): void;
}

export function kafkaSinkEvents(ctx: Pick<ComponentContext, 'telemetry'>): KafkaSinkEvents {
  const t = ctx.telemetry;
  const queue = t.gauge('kafka_queue_messages');
  const queueBytes = t.gauge('kafka_queue_messages_bytes');
  const requests = t.counter('kafka_requests_total');
  const requestBytes = t.counter('kafka_requests_bytes_total');
  const responses = t.counter('kafka_responses_total');
  const produced = t.counter('kafka_produced_messages_total');
  const producedBytes = t.counter('kafka_produced_messages_bytes_total');
  return {
    sent(records, bytes) {
      queue.add(records);
      queueBytes.add(bytes);
      requests.add(1);
      requestBytes.add(bytes);
    },
    answered(records, bytes, acknowledged) {
      queue.add(-records);
      queueBytes.add(-bytes);
      responses.add(1);
      if (!acknowledged) return;
      produced.add(records);
      producedBytes.add(bytes);
    },
  };
}
