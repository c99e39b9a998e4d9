/** `file`: lines appended to local files, followed through rotation, with checkpoints. */
import { defineSource } from '../../../lib/component.js';
import { FileSourceConfig } from './config.js';
import { fileWorkerDecoding } from './decoder.js';
import { buildFileSource } from './source.js';

export { FileSourceConfig } from './config.js';
export { buildFileSource } from './source.js';

/** The `file` source definition. */
export const fileSource = defineSource({
  type: 'file',
  summary: 'Read lines appended to local files matched by glob patterns, following rotation, with checkpoints so a restart resumes where it stopped.',
  schema: FileSourceConfig,
  acknowledges: true,
  workerDecoding: fileWorkerDecoding,
  build: buildFileSource,
});
