/** The `cloudw_object_storage` sink (Vector's `aws_s3`) as a composition of the request-sink skeleton. */
import type { S3Client } from '@aws-sdk/client-s3';
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { cloudwHealthcheck } from '../../shared/cloudw/healthcheck.js';
import { isRetriableCloudwError, statusOfCloudwError } from '../../shared/cloudw/retry.js';
import { createObjectNamer } from '../../shared/object-storage/naming.js';
import { objectPartition, partitionParts } from '../../shared/object-storage/partition.js';
import { requestSink } from '../../shared/request-sink.js';
import { createObjectStorageClient } from './client.js';
import type { CloudwObjectStorageConfig } from './config.js';
import { type EncodedObjectEvent, objectEventEncoder } from '../../shared/object-storage/encoded.js';
import { createObjectBodyEncoder } from '../../shared/object-storage/body.js';
import { objectBodies } from '../../shared/object-storage/build.js';
import { ObjectStorageEvents } from './events.js';
import { objectHeaders } from './headers.js';
import { type ObjectRequest, buildObjectRequest } from './request.js';
import { type ObjectWritten, createObjectWriter } from './service.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const s3 = lazyModule<typeof import('@aws-sdk/client-s3')>('@aws-sdk/client-s3');

/** Builds the sink; `client` replaces the one the options describe (tests). */
export function buildCloudwObjectStorageSink(config: CloudwObjectStorageConfig, ctx: SinkContext, client?: S3Client): OperatorFunction<EventBatch, Delivery> {
  const events = new ObjectStorageEvents(ctx);
  const body = createObjectBodyEncoder(config.encoding, config.framing, ctx.globals.log_schema);
  const compressor = createCompressor(config.compression);
  const namer = createObjectNamer(config, compressor.extension, ctx.globals.timezone);
  const s3 = client ?? createObjectStorageClient(config, ctx).client;
  const encoder = objectEventEncoder(body, objectPartition(namer, config.ssekms_key_id));
  const bodies = objectBodies(body, encoder, compressor, config.batch.max_bytes);
  const partsOf = partitionParts(config.ssekms_key_id);
  const writer = createObjectWriter(s3, objectHeaders(config, compressor.contentEncoding), {
    thresholdBytes: config.multipart.threshold_bytes,
    partSizeBytes: config.multipart.part_size_bytes,
  });
  return requestSink<EncodedObjectEvent, ObjectRequest, ObjectWritten>(
    {
      encode: encoder.encode,
      // one object per rendered key prefix (and KMS key, when that is a template), as in Vector
      partition: encoder.partition,
      build: (items, key) => {
        const [prefix, kmsKeyId] = partsOf(key);
        return buildObjectRequest(items, prefix, kmsKeyId, ctx.scheduler.now(), namer, bodies);
      },
      send: (req, signal) => writer.write(req, signal),
      // an uncompressed body is pooled memory: it takes the next body once nothing sends it again
      finished: (req) => bodies.finished(req.body),
      classify: (how, req) => {
        events.written(req.key, req.bytes, how);
        return { kind: 'ok' };
      },
      isRetriableError: isRetriableCloudwError,
      close: () => (client ? undefined : s3.destroy()),
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/** As Vector checks: HeadBucket after the credentials resolve; 403 and 404 named; never retried. */
export async function cloudwObjectStorageHealthcheck(config: CloudwObjectStorageConfig, ctx: Pick<ComponentContext, 'globals'>, env?: Readonly<Record<string, string | undefined>>): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const { client, credentials } = createObjectStorageClient(config, ctx, env);
  try {
    await cloudwHealthcheck(
      credentials,
      async (signal) => {
        try {
          await client.send(new (s3().HeadBucketCommand)({ Bucket: config.bucket }), { abortSignal: signal });
        } catch (err) {
          const status = statusOfCloudwError(err);
          if (status === 403) throw new Error(`HeadBucket ${config.bucket}: invalid credentials (403)`);
          if (status === 404) throw new Error(`HeadBucket ${config.bucket}: unknown bucket (404)`);
          if (status !== undefined) throw new Error(`HeadBucket ${config.bucket}: unknown status ${status}`);
          throw err;
        }
      },
      config.request.timeout_secs * 1000,
    );
  } finally {
    client.destroy();
  }
}
