/**
 * The `file` sink's encoder in a pipeline worker (docs/threads.md): each event's text, and its
 * rendered path as the partition key (the event's fields stay in the worker, so the path is
 * rendered there), so the main thread only frames, holds and writes.
 */
import type { WorkerOptions, WorkerSinkEncoder } from '../../../lib/component.js';
import type { EncodingConfig } from '../../../lib/codecs/encoding.js';
import type { FramingConfig } from '../../../lib/codecs/framing.js';
import type { GlobalOptions } from '../../../lib/config/global.js';
import { streamWorkerEncoder } from '../../shared/stream-records.js';
import { filePath } from './path.js';

/** The options a worker receives of a `file` sink; the rest stay on the main thread. */
const FILE_WORKER_OPTIONS = ['encoding', 'framing', 'path', 'timezone'] as const;

/** Text codecs: the binary `native` codec frames payloads, which workers do not write. */
export const fileWorkerEncoding = (encoding: EncodingConfig): WorkerOptions | undefined =>
  encoding.codec === 'native' ? undefined : { options: FILE_WORKER_OPTIONS, copiesMessage: encoding.codec === 'text' };

export function fileWorkerEncoder(
  options: { readonly encoding: EncodingConfig; readonly framing?: FramingConfig; readonly path: string; readonly timezone?: string },
  globals: GlobalOptions,
): WorkerSinkEncoder {
  const path = filePath(options.path, options.timezone ?? globals.timezone);
  return {
    // with the framing's delimiter between records, as for the socket sink: the sink copies runs of them
    ...streamWorkerEncoder(options, globals),
    partition: path.render,
    partitionByTimeOnly: path.template.fields.length === 0,
  };
}
