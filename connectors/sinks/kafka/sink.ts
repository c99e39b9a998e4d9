/**
 * The `kafka` sink as a composition of the request-sink skeleton: each event is one record on its
 * rendered topic; records are batched per topic, and one batch is one `send` of the producer with
 * `acks = -1` (librdkafka's default, `all`), so an event is delivered once every in-sync replica
 * of its partition has the record. A batch the broker did not take is sent again (Fibonacci
 * backoff) until `message_timeout_ms` after its first attempt, then its events end `errored`.
 * Requests go one at a time, so records of one partition stay in order across retries.
 */
import type { OperatorFunction } from 'rxjs';
import type { SinkContext } from '../../../lib/component.js';
import { type Delivery, type Event, type EventBatch, EncodedLogEvent } from '../../../lib/event.js';
import { compileTemplate } from '../../../lib/template.js';
import { type KafkaBaseOptions, describeKafkaError, kafkaBaseOptions, kafkaClient } from '../../shared/kafka/client.js';
import { ResponseError, requestSink } from '../../shared/request-sink.js';
import { type KafkaSinkConfig, SINK_LIBRDKAFKA_OPTIONS } from './config.js';
import { type KafkaRecordOut, createKafkaEncoder } from './encoder.js';
import { kafkaSinkEvents } from './events.js';

type Producer = InstanceType<ReturnType<typeof kafkaClient>['Producer']>;

/** One produce request: the records of one topic's batch. */
export interface KafkaRequest {
  readonly events: Event[];
  readonly records: KafkaRecordOut[];
  readonly bytes: number;
  /** When its first attempt started (scheduler time), for `message_timeout_ms`. */
  firstAttemptAt: number | undefined;
}

/** The producer settings of a sink: connection, acknowledgements, batching (librdkafka options applied). */
export interface KafkaProducerSettings {
  readonly client: KafkaBaseOptions;
  readonly acks: number;
  readonly messageTimeoutMs: number;
  readonly batch: { maxEvents: number; maxBytes: number; timeoutMs: number };
}

export function producerSettings(config: KafkaSinkConfig): KafkaProducerSettings {
  // the client's own retries stay short: the skeleton retries a whole batch with backoff
  const client = kafkaBaseOptions(config, SINK_LIBRDKAFKA_OPTIONS, 1);
  const take = <T>(key: string, fallback: T): T => {
    const v = client[key] as T | undefined;
    delete client[key];
    return v ?? fallback;
  };
  return {
    acks: take('acks', -1),
    messageTimeoutMs: take('messageTimeoutMs', config.message_timeout_ms),
    batch: {
      maxEvents: take('batchMaxEvents', config.batch.max_events ?? 10_000),
      maxBytes: take('batchMaxBytes', config.batch.max_bytes ?? 1_000_000),
      timeoutMs: take('batchTimeoutMs', config.batch.timeout_secs * 1000),
    },
    client,
  };
}

/** Builds the sink; `producer` replaces the one made from the options (tests). */
export function buildKafkaSink(config: KafkaSinkConfig, ctx: SinkContext): OperatorFunction<EventBatch, Delivery> {
  const settings = producerSettings(config);
  const encoder = createKafkaEncoder(config, ctx.globals.log_schema);
  const events = kafkaSinkEvents(ctx);
  const compression = config.compression === 'none' ? undefined : (config.compression as 'gzip' | 'snappy' | 'lz4');
  let producer: Producer | undefined;
  const getProducer = (): Producer =>
    (producer ??= new (kafkaClient().Producer)({ ...settings.client, acks: settings.acks, autocreateTopics: true, ...(compression === undefined ? {} : { compression }) }));
  const send = async (req: KafkaRequest): Promise<void> => {
    const now = ctx.scheduler.now();
    req.firstAttemptAt ??= now;
    // past its deadline a batch ends errored, as librdkafka fails a message after message.timeout.ms
    if (now - req.firstAttemptAt > settings.messageTimeoutMs)
      throw new ResponseError(new Error(`records not acknowledged within message_timeout_ms (${settings.messageTimeoutMs} ms)`), false, 'errored');
    const messages = req.records.map((r) => ({ topic: r.key!, value: r.value, key: r.recordKey, headers: r.headers, timestamp: r.timestamp }));
    events.sent(messages.length, req.bytes);
    try {
      await getProducer().send({ messages });
    } catch (err) {
      events.answered(messages.length, req.bytes, false);
      throw new Error(describeKafkaError(err), { cause: err });
    }
    events.answered(messages.length, req.bytes, true);
  };
  return requestSink<KafkaRecordOut, KafkaRequest, void>(
    {
      encode: encoder.encode,
      // batches are per topic; a topic that cannot render rejects that one event as template_failed
      partition: (r) => encoder.renderTopic(r),
      build: (items) => {
        let bytes = 0;
        for (const r of items) bytes += r.size;
        return { events: items.map((r) => r.event), records: items, bytes, firstAttemptAt: undefined };
      },
      send: (req) => send(req),
      classify: () => ({ kind: 'ok' }),
      isRetriableError: (err) => !(err instanceof ResponseError && !err.retriable),
      // values of records a pipeline worker encoded are its memory, read by every attempt until now
      finished: (req) => {
        for (const r of req.records) if (r.event instanceof EncodedLogEvent) r.event.records?.done(1);
      },
      close: async () => {
        await producer?.close().catch(() => undefined);
      },
    },
    {
      limits: { maxEvents: settings.batch.maxEvents, maxBytes: settings.batch.maxBytes, timeoutMs: settings.batch.timeoutMs },
      request: {
        concurrency: 'none',
        adaptive_concurrency: { decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2, initial_concurrency: 1, max_concurrency_limit: 1 },
        retry_attempts: Number.MAX_SAFE_INTEGER,
        retry_initial_backoff_secs: 1,
        // librdkafka backs off at most 1 s between retries; a little longer here, as one retry is a whole batch
        retry_max_duration_secs: 10,
        timeout_secs: Math.ceil(config.socket_timeout_ms / 1000),
        rate_limit_num: Number.MAX_SAFE_INTEGER,
        rate_limit_duration_secs: 1,
      },
    },
    ctx,
  );
}

/** As Vector's: a metadata request for the health check topic (or the topic when it is no template), with the sink's login. */
export async function kafkaHealthcheck(config: KafkaSinkConfig): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const topic = config.healthcheck_topic ?? (compileTemplate(config.topic).isDynamic ? undefined : config.topic);
  const { client } = producerSettings(config);
  const admin = new (kafkaClient().Producer)({ ...client, retries: 0 });
  try {
    await admin.metadata({ topics: topic === undefined ? [] : [topic], autocreateTopics: false });
  } catch (err) {
    throw new Error(describeKafkaError(err));
  } finally {
    await admin.close().catch(() => undefined);
  }
}
