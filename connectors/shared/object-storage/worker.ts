/**
 * An object-storage sink's encoder in a pipeline worker (docs/threads.md): each event's text as the
 * sink's body encoder writes it, and its partition key (the rendered key prefix, and KMS key), so
 * the main thread only joins, compresses and writes objects.
 */
import type { WorkerSinkEncoder } from '../../../lib/component.js';
import type { EncodingConfig } from '../../../lib/codecs/encoding.js';
import type { FramingConfig } from '../../../lib/codecs/framing.js';
import type { GlobalOptions } from '../../../lib/config/global.js';
import { compileTemplate } from '../../../lib/template.js';
import { createObjectBodyEncoder } from './body.js';
import { createObjectNamer } from './naming.js';
import type { ObjectNamingConfig } from './options.js';
import { objectPartition } from './partition.js';

/** The options a worker receives of an object-storage sink ({@link OBJECT_WORKER_OPTIONS}). */
export type ObjectWorkerOptions = ObjectNamingConfig & { readonly encoding: EncodingConfig; readonly framing?: FramingConfig; readonly ssekms_key_id?: string };

/** The options an object-storage sink's worker encoder is built from; the rest stay on the main thread. */
export const OBJECT_WORKER_OPTIONS = ['encoding', 'framing', 'key_prefix', 'filename_time_format', 'filename_append_uuid', 'filename_extension', 'timezone', 'ssekms_key_id'] as const;

export function objectWorkerEncoder(options: ObjectWorkerOptions, globals: GlobalOptions): WorkerSinkEncoder {
  const body = createObjectBodyEncoder(options.encoding, options.framing, globals.log_schema);
  // the object names' extension is the main thread's: the prefix does not depend on it
  const partition = objectPartition(createObjectNamer(options, '', globals.timezone), options.ssekms_key_id);
  const byTimeOnly = [options.key_prefix, options.ssekms_key_id ?? ''].every((t) => compileTemplate(t).fields.length === 0);
  return { writeText: body.writeText, separator: undefined, partition, partitionByTimeOnly: byTimeOnly };
}
