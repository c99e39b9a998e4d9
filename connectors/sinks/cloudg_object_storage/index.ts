/** The `cloudg_object_storage` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { OBJECT_WORKER_OPTIONS } from '../../shared/object-storage/worker.js';
import { CloudgObjectStorageConfig } from './config.js';
import { buildCloudgObjectStorageSink, cloudgObjectStorageHealthcheck } from './sink.js';

export { CloudgObjectStorageConfig } from './config.js';
export { buildCloudgObjectStorageSink, cloudgObjectStorageHealthcheck } from './sink.js';

/** Writes batches of events as objects in a bucket of the cloud object store. */
export const cloudgObjectStorageSink = defineSink({
  type: 'cloudg_object_storage',
  aliases: ['gcp_cloud_storage'],
  summary: 'Write batches of events as objects in a cloud storage bucket (XML API; resumable uploads for large objects).',
  schema: CloudgObjectStorageConfig,
  input: 'log',
  pullSize: (c) => Math.min(c.batch.max_events ?? 10_000, 10_000),
  // every configuration: the records and their key prefixes are made where the events are
  workerEncoding: (config) => ({ options: OBJECT_WORKER_OPTIONS, copiesMessage: config.encoding.codec === 'text' }),
  build: (config, ctx) => buildCloudgObjectStorageSink(config, ctx),
  healthcheck: (config, ctx) => cloudgObjectStorageHealthcheck(config, ctx),
});
