/** Options of the `cloudw_stream` sink (Vector's `aws_kinesis_streams`). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { cloudwConnectionEntries, requireRegionOrEndpoint } from '../../shared/cloudw/options.js';

/** Service limits of one PutRecords call (the PutRecords API reference); the batch options may not exceed them. */
export const MAX_RECORDS_PER_CALL = 500;
export const MAX_BATCH_BYTES = 5_000_000;

/** Valibot schema of the `cloudw_stream` sink. */
export const CloudwStreamSinkConfig = v.pipe(
  sinkObject(
    'cloudw_stream',
    {
      stream_name: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(128, 'must be at most 128 characters'), v.regex(/^[a-zA-Z0-9_.-]+$/, 'may hold only letters, digits, "_", "." and "-"'), v.description('Name of the stream to put records to.')),
      partition_key_field: v.optional(
        fieldPathSchema('Event field whose value is the partition key (cut at 256 characters); without it each record gets a random key.', { empty: 'must not be empty' }),
      ),
      ...cloudwConnectionEntries(),
      encoding: encodingSchema(['json', 'text'] as const),
      compression: compressionSchema(['none', 'gzip'] as const, 'none'),
      batch: batchSchema({ max_events: MAX_RECORDS_PER_CALL, max_bytes: MAX_BATCH_BYTES, timeout_secs: 1 }),
      request: requestSchema(REQUEST_DEFAULTS),
    },
    { proxy: true, allowDiskV1: true },
  ),
  requireRegionOrEndpoint(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const b = dataset.value.batch;
    if (b.max_events !== undefined && b.max_events > MAX_RECORDS_PER_CALL) addIssue({ message: `must be at most ${MAX_RECORDS_PER_CALL} (records per PutRecords call)`, path: [pathItem(dataset.value, 'batch'), pathItem(b, 'max_events')] });
    if (b.max_bytes !== undefined && b.max_bytes > MAX_BATCH_BYTES) addIssue({ message: `must be at most ${MAX_BATCH_BYTES} (bytes per PutRecords call)`, path: [pathItem(dataset.value, 'batch'), pathItem(b, 'max_bytes')] });
  }),
);
/** Validated `cloudw_stream` options. */
export type CloudwStreamSinkConfig = v.InferOutput<typeof CloudwStreamSinkConfig>;
