/** Options of the `cloudw_queue` sink (Vector's `aws_sqs`). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { REQUEST_DEFAULTS, type RequestDefaults, requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { cloudwConnectionEntries, requireRegionOrEndpoint } from '../../shared/cloudw/options.js';

/** This sink's request defaults (rate 5 per second, retry waits up to 10 s, 30 s per attempt). */
export const QUEUE_REQUEST_DEFAULTS: RequestDefaults = {
  ...REQUEST_DEFAULTS,
  rate_limit_num: 5,
  retry_attempts: 1.8446744073709552e19,
  retry_max_duration_secs: 10,
  timeout_secs: 30,
};

/** A queue is FIFO when its URL (its name) ends in `.fifo`. */
export const isFifoQueue = (queueUrl: string): boolean => queueUrl.replace(/\/+$/, '').endsWith('.fifo');

/** Valibot schema of the `cloudw_queue` sink; it has no batch options. */
export const CloudwQueueSinkConfig = v.pipe(
  sinkObject(
    'cloudw_queue',
    {
      queue_url: v.pipe(v.string(), v.url('must be a URL'), v.description('URL of the queue to send to.')),
      ...cloudwConnectionEntries(),
      message_group_id: v.optional(templateSchema('Template of the message group of each event; required for FIFO queues, refused for others.', { nonEmpty: true })),
      message_deduplication_id: v.optional(templateSchema('Template of the deduplication id of each event (FIFO queues); must be unique per event.', { nonEmpty: true })),
      // the codec is optional here; json when unset
      encoding: v.optional(encodingSchema(['json', 'text'] as const, {}, 'json'), { codec: 'json' as const }),
      request: requestSchema(QUEUE_REQUEST_DEFAULTS),
    },
    { proxy: true },
  ),
  requireRegionOrEndpoint(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const fifo = isFifoQueue(c.queue_url);
    if (fifo && c.message_group_id === undefined)
      addIssue({ message: 'message_group_id is required for a FIFO queue (queue_url ends in ".fifo")', path: [pathItem(c, 'message_group_id')] });
    if (!fifo && c.message_group_id !== undefined)
      addIssue({ message: 'message_group_id applies only to FIFO queues (queue_url ending in ".fifo")', path: [pathItem(c, 'message_group_id')] });
    if (!fifo && c.message_deduplication_id !== undefined)
      addIssue({ message: 'message_deduplication_id applies only to FIFO queues (queue_url ending in ".fifo")', path: [pathItem(c, 'message_deduplication_id')] });
  }),
);
/** Validated `cloudw_queue` sink options. */
export type CloudwQueueSinkConfig = v.InferOutput<typeof CloudwQueueSinkConfig>;
