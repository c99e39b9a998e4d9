/** The `cloudw_queue` sink (Vector's `aws_sqs`) as a composition of the request-sink skeleton. */
import type { SQSClient, SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { cloudwClientConfig } from '../../shared/cloudw/client.js';
import { cloudwHealthcheck } from '../../shared/cloudw/healthcheck.js';
import { isRetriableCloudwError } from '../../shared/cloudw/retry.js';
import { requestSink } from '../../shared/request-sink.js';
import type { CloudwQueueSinkConfig } from './config.js';
import { MAX_BATCH_ENTRIES, MAX_MESSAGE_BYTES, type QueueMessage, createQueueEncoder } from './encoder.js';
import { type QueueRequest, buildQueueRequest } from './request.js';
import { classifyBatchAnswer } from './retry.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const sqsSdk = lazyModule<typeof import('@aws-sdk/client-sqs')>('@aws-sdk/client-sqs');

/** The client the sink sends with; `request.headers` go on every call, signed with it. */
export function createQueueClient(config: CloudwQueueSinkConfig, ctx: Pick<ComponentContext, 'globals'>, clientConfig = cloudwClientConfig(config, ctx)): SQSClient {
  const client = new (sqsSdk().SQSClient)(clientConfig);
  const headers = config.request.headers;
  if (Object.keys(headers).length > 0)
    client.middlewareStack.add(
      (next) => (args) => {
        const request = args.request as { headers?: Record<string, string> } | undefined;
        if (request?.headers) Object.assign(request.headers, headers);
        return next(args);
      },
      { step: 'build', name: 'weirRequestHeaders' },
    );
  return client;
}

/**
 * Builds the sink. Messages go out in SendMessageBatch calls of at most 10 entries and 256 KiB
 * (no batch options; the batch is what is at hand, never held back by a timer); a
 * message over 256 KiB alone is rejected and counted.
 */
export function buildCloudwQueueSink(config: CloudwQueueSinkConfig, ctx: SinkContext, client?: SQSClient): OperatorFunction<EventBatch, Delivery> {
  const sqs = client ?? createQueueClient(config, ctx);
  const encoder = createQueueEncoder(config, ctx.globals.log_schema);
  const renderIds = encoder.renderIds;
  return requestSink<QueueMessage, QueueRequest, SendMessageBatchCommandOutput>(
    {
      encode: encoder.encode,
      // the ids render where templates do, so a missing field rejects that one event as template_failed
      partition:
        renderIds === undefined
          ? undefined
          : (m) => {
              renderIds(m);
              return '';
            },
      build: (items) => buildQueueRequest(items),
      send: (req, signal) => sqs.send(new (sqsSdk().SendMessageBatchCommand)({ QueueUrl: config.queue_url, Entries: req.entries }), { abortSignal: signal }),
      classify: classifyBatchAnswer,
      isRetriableError: isRetriableCloudwError,
      close: () => (client ? undefined : sqs.destroy()),
    },
    { limits: { maxEvents: MAX_BATCH_ENTRIES, maxBytes: MAX_MESSAGE_BYTES, timeoutMs: 0 }, request: config.request, rejectOversize: true },
    ctx,
  );
}

/**
 * As Vector checks: GetQueueAttributes on the queue, never retried; any answer is healthy. The
 * credentials are looked up first, so a check without any says which sources were tried.
 */
export async function cloudwQueueHealthcheck(config: CloudwQueueSinkConfig, ctx: Pick<ComponentContext, 'globals'>, client?: SQSClient): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const clientConfig = cloudwClientConfig(config, ctx);
  const sqs = client ?? createQueueClient(config, ctx, clientConfig);
  try {
    await cloudwHealthcheck(
      clientConfig.credentials,
      async (signal) => void (await sqs.send(new (sqsSdk().GetQueueAttributesCommand)({ QueueUrl: config.queue_url }), { abortSignal: signal })),
      config.request.timeout_secs * 1000,
    );
  } finally {
    if (!client) sqs.destroy();
  }
}
