/** The `cloudg_object_storage` sink (Vector's `gcp_cloud_storage`) as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { type CloudgAuth, SCOPES, createCloudgAuth } from '../../shared/cloudg/auth.js';
import { cloudgHealthcheck, cloudgVerdict, createCloudgService, isRetriableCloudgError, tokenTransport } from '../../shared/cloudg/service.js';
import type { HttpService } from '../../shared/http/service.js';
import { createObjectBodyEncoder } from '../../shared/object-storage/body.js';
import { objectBodies } from '../../shared/object-storage/build.js';
import { createObjectNamer } from '../../shared/object-storage/naming.js';
import { objectPartition } from '../../shared/object-storage/partition.js';
import { requestSink } from '../../shared/request-sink.js';
import type { CloudgObjectStorageConfig } from './config.js';
import { objectHeaders } from './headers.js';
import { type ObjectRequest, buildObjectRequest } from './request.js';
import { type EncodedObjectEvent, objectEventEncoder } from '../../shared/object-storage/encoded.js';
import { createObjectUploader } from './upload.js';

const service = (config: CloudgObjectStorageConfig, auth: CloudgAuth, ctx: Pick<ComponentContext, 'globals'>): HttpService =>
  createCloudgService(auth, { tls: config.tls, proxy: config.proxy, headers: config.request.headers }, ctx.globals);

/** Builds the sink; the credentials give their first token when the first request (or the health check) needs it. */
export function buildCloudgObjectStorageSink(config: CloudgObjectStorageConfig, ctx: SinkContext, env: NodeJS.ProcessEnv = process.env): OperatorFunction<EventBatch, Delivery> {
  const auth = createCloudgAuth(config, SCOPES.storage, env, tokenTransport(config, ctx.globals));
  const http = service(config, auth, ctx);
  const body = createObjectBodyEncoder(config.encoding, config.framing, ctx.globals.log_schema);
  const compressor = createCompressor(config.compression);
  const namer = createObjectNamer(config, compressor.extension, ctx.globals.timezone);
  const encoder = objectEventEncoder(body, objectPartition(namer));
  const bodies = objectBodies(body, encoder, compressor, config.batch.max_bytes);
  const upload = createObjectUploader(http, {
    endpoint: config.endpoint,
    bucket: config.bucket,
    headers: objectHeaders(config, body.contentType, compressor.contentEncoding),
    thresholdBytes: config.resumable_threshold_bytes,
    chunkBytes: config.resumable_chunk_bytes,
    authUrl: (u) => auth.url(u),
  });
  return requestSink<EncodedObjectEvent, ObjectRequest, HttpResponse>(
    {
      encode: encoder.encode,
      // one object per rendered key prefix, as in Vector
      partition: encoder.partition,
      build: (items, prefix) => buildObjectRequest(items, prefix ?? '', ctx.scheduler.now(), namer, bodies),
      send: (req, signal) => upload(req, signal),
      // an uncompressed body is pooled memory: it takes the next body once nothing sends it again
      finished: (req) => bodies.finished(req.body),
      classify: cloudgVerdict<ObjectRequest>(auth),
      isRetriableError: isRetriableCloudgError,
      close: async () => {
        await http.close();
        await auth.close();
      },
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/** As Vector checks: `HEAD /<bucket>/`; 403 "forbidden", 404 "bucket not found"; never retried. */
export async function cloudgObjectStorageHealthcheck(config: CloudgObjectStorageConfig, ctx: Pick<ComponentContext, 'globals'>, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const auth = createCloudgAuth(config, SCOPES.storage, env, tokenTransport(config, ctx.globals));
  const http = service(config, auth, ctx);
  try {
    const url = `${config.endpoint.replace(/\/+$/, '')}/${config.bucket}/`;
    await cloudgHealthcheck(http, auth, { method: 'HEAD', url, notFound: 'bucket not found', timeoutMs: config.request.timeout_secs * 1000 });
  } finally {
    await http.close();
    await auth.close();
  }
}
