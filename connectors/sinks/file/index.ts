/** `file`: append events to files named by a path template. */
import { defineSink } from '../../../lib/component.js';
import { FileSinkConfig } from './config.js';
import { buildFileSink } from './sink.js';
import { fileWorkerEncoding } from './worker.js';

export { FileSinkConfig } from './config.js';
export { buildFileSink } from './sink.js';

/** The `file` sink definition. */
export const fileSink = defineSink({
  type: 'file',
  summary: 'Append events to files named by a path template, encoded, framed and optionally gzip-compressed.',
  schema: FileSinkConfig,
  vectorOptions: ['internal_metrics', 'truncate', 'base_dir'],
  input: 'any',
  // text codecs: a worker writes each event's text and renders its path, the sink frames and writes
  workerEncoding: (config) => fileWorkerEncoding(config.encoding),
  build: buildFileSink,
});
