/** Options of the `file` sink. */
import * as v from 'valibot';
import { ENCODING_CODECS, FRAMING_METHODS, encodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { timezoneSchema } from '../../../lib/config/options/timezone.js';

/** The `file` sink options; `path` is a template checked at load. */
export const FileSinkConfig = sinkObject('file', {
  path: templateSchema('File to append to; a template (`/var/log/{{ app }}/%F.log`), one open file per rendered path.', { nonEmpty: true }),
  encoding: encodingSchema(ENCODING_CODECS),
  framing: v.optional(framingSchema(FRAMING_METHODS, undefined, 'encode'), {}),
  compression: compressionSchema(['none', 'gzip'] as const, 'none'),
  idle_timeout_secs: v.optional(v.pipe(posint(), v.description('Close a file after this many seconds without writes.')), 30),
  timezone: v.optional(timezoneSchema('Time zone of strftime items in the path; overrides the global timezone.')),
});
/** Validated `file` sink options. */
export type FileSinkConfig = v.InferOutput<typeof FileSinkConfig>;
