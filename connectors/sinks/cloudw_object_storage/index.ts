/** The `cloudw_object_storage` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { OBJECT_WORKER_OPTIONS } from '../../shared/object-storage/worker.js';
import { CloudwObjectStorageConfig } from './config.js';
import { buildCloudwObjectStorageSink, cloudwObjectStorageHealthcheck } from './sink.js';

export { CloudwObjectStorageConfig } from './config.js';
export { buildCloudwObjectStorageSink, cloudwObjectStorageHealthcheck } from './sink.js';

/** Writes batches of events as objects to a bucket of the cloud object store. */
export const cloudwObjectStorageSink = defineSink({
  type: 'cloudw_object_storage',
  aliases: ['aws_s3'],
  summary: 'Write batches of events as objects (PutObject, multipart for large batches) to a bucket of the cloud object store.',
  schema: CloudwObjectStorageConfig,
  input: 'any',
  pullSize: (c) => Math.min(c.batch.max_events ?? 10_000, 10_000),
  // every configuration: the records and their key prefixes are made where the events are
  workerEncoding: (config) => ({ options: OBJECT_WORKER_OPTIONS, copiesMessage: config.encoding.codec === 'text' }),
  build: (config, ctx) => buildCloudwObjectStorageSink(config, ctx),
  healthcheck: (config, ctx) => cloudwObjectStorageHealthcheck(config, ctx),
});
