/** Shared helpers of the cloudw_object_storage sink specs. */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { gunzipSync } from 'node:zlib';
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudwObjectStorageConfig } from '../../../../connectors/sinks/cloudw_object_storage/config.js';
import { buildCloudwObjectStorageSink } from '../../../../connectors/sinks/cloudw_object_storage/sink.js';
import { type Delivery, type EventBatch, type LogEvent, logEvent } from '../../../../lib/event.js';
import { Timestamp, type Value } from '../../../../lib/value.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';
import { S3RVER_CREDENTIALS } from '../../../peers/s3.js';

export const BUCKET = 'logs';

/** Parses a config the way the loader does: the bucket, s3rver's keys and the json codec unless given. */
export function s3Config(endpoint: string, extra: Record<string, unknown> = {}): CloudwObjectStorageConfig {
  return v.parse(CloudwObjectStorageConfig, {
    type: 'cloudw_object_storage',
    inputs: ['in'],
    bucket: BUCKET,
    endpoint,
    region: 'us-east-1',
    auth: { access_key_id: S3RVER_CREDENTIALS.accessKeyId, secret_access_key: S3RVER_CREDENTIALS.secretAccessKey },
    encoding: { codec: 'json' },
    ...extra,
  });
}

/** Fast retries for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: CloudwObjectStorageConfig, over: Partial<CloudwObjectStorageConfig['request']> = {}): CloudwObjectStorageConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 10, ...over };
  return config;
}

/** 2023-11-14T22:13:20Z plus `ms`. */
export const at = (ms = 0) => new Timestamp(1_700_000_000_000 + ms, 0);

/** A log event at `at(ms)`. */
export function log(message: string, ms = 0, fields: Record<string, Value> = {}): LogEvent {
  return logEvent({ message, timestamp: at(ms), ...fields });
}

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: CloudwObjectStorageConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('cloudw_object_storage')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildCloudwObjectStorageSink(config, ctx), toArray()));
}

/** Events per status over all deliveries. */
export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

/** The official client, reading s3rver directly. */
export function readClient(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { ...S3RVER_CREDENTIALS }, requestHandler: new NodeHttpHandler() });
}

/** One stored object: its key, body (gunzipped when its Content-Encoding says gzip) and the stored headers. */
export interface StoredObject {
  readonly key: string;
  readonly raw: Buffer;
  readonly body: string;
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly storageClass: string | undefined;
}

/** Every object of the bucket under `prefix`, sorted by key. */
export async function readObjects(client: S3Client, prefix = ''): Promise<StoredObject[]> {
  const list = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  const out: StoredObject[] = [];
  for (const o of list.Contents ?? []) {
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: o.Key! }));
    const raw = Buffer.from(await got.Body!.transformToByteArray());
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: o.Key! }));
    const body = head.ContentEncoding === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
    out.push({ key: o.Key!, raw, body, contentType: head.ContentType, contentEncoding: head.ContentEncoding, storageClass: head.StorageClass ?? o.StorageClass });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
