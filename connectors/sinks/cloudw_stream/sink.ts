/** The `cloudw_stream` sink (Vector's `aws_kinesis_streams`) as a composition of the request-sink skeleton. */
import type { KinesisClient, PutRecordsCommandOutput } from '@aws-sdk/client-kinesis';
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { cloudwClientConfig } from '../../shared/cloudw/client.js';
import { cloudwHealthcheck } from '../../shared/cloudw/healthcheck.js';
import { isRetriableCloudwError } from '../../shared/cloudw/retry.js';
import { requestSink } from '../../shared/request-sink.js';
import type { CloudwStreamSinkConfig } from './config.js';
import { type StreamRecord, createStreamEncoder } from './encoder.js';
import { StreamSinkEvents } from './events.js';
import { type StreamRequest, buildStreamRequest, recordCompressor } from './request.js';
import { RecordsFailedError, RecordsRefusedError, classifyPutRecords } from './retry.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const kinesisSdk = lazyModule<typeof import('@aws-sdk/client-kinesis')>('@aws-sdk/client-kinesis');

/** The client the sink sends with. */
export const createStreamClient = (config: CloudwStreamSinkConfig, ctx: Pick<ComponentContext, 'globals'>): KinesisClient => new (kinesisSdk().KinesisClient)(cloudwClientConfig(config, ctx));

/**
 * Builds the sink: PutRecords of at most 500 records and 5,000,000 bytes, batched across keys;
 * when some records of a call fail, only those are sent again (Vector
 * 0.28 counts them delivered and later Vector retries them only on request).
 */
export function buildCloudwStreamSink(config: CloudwStreamSinkConfig, ctx: SinkContext, client?: KinesisClient): OperatorFunction<EventBatch, Delivery> {
  const kinesis = client ?? createStreamClient(config, ctx);
  const encode = createStreamEncoder(config, ctx.globals.log_schema);
  const compress = recordCompressor(config.compression);
  const events = new StreamSinkEvents(ctx);
  return requestSink<StreamRecord, StreamRequest, Pick<PutRecordsCommandOutput, 'FailedRecordCount' | 'Records'>>(
    {
      encode,
      build: (items) => buildStreamRequest(items, compress, config.partition_key_field, events),
      send: (req, signal) => kinesis.send(new (kinesisSdk().PutRecordsCommand)({ StreamName: config.stream_name, Records: [...req.records] }), { abortSignal: signal }),
      classify: classifyPutRecords,
      isRetriableError: isRetriableCloudwError,
      // the per-record counters: once per answer that failed records, retried or refused
      attemptFailed: (err) => {
        if (err instanceof RecordsFailedError) events.partial(err.code, err.failed, err.total);
        else if (err instanceof RecordsRefusedError) events.refused(err.refused);
      },
      close: () => (client ? undefined : kinesis.destroy()),
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/**
 * As Vector checks: DescribeStream with `Limit: 1` (a permission the sink needs anyway), healthy
 * when the stream it describes is `stream_name`; never retried. Credentials are looked up first,
 * so a check without any says which sources were tried.
 */
export async function cloudwStreamHealthcheck(config: CloudwStreamSinkConfig, ctx: Pick<ComponentContext, 'globals'>, client?: KinesisClient): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const clientConfig = cloudwClientConfig(config, ctx);
  const kinesis = client ?? new (kinesisSdk().KinesisClient)(clientConfig);
  try {
    await cloudwHealthcheck(
      clientConfig.credentials,
      async (signal) => {
        const out = await kinesis.send(new (kinesisSdk().DescribeStreamCommand)({ StreamName: config.stream_name, Limit: 1 }), { abortSignal: signal });
        const name = out.StreamDescription?.StreamName;
        if (name !== config.stream_name) throw new Error(`stream "${config.stream_name}" described as "${name ?? ''}"`);
      },
      config.request.timeout_secs * 1000,
    );
  } finally {
    if (!client) kinesis.destroy();
  }
}
