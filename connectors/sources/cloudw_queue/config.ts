/** Options of the `cloudw_queue` source (Vector's `aws_sqs` source options). */
import { availableParallelism } from 'node:os';
import * as v from 'valibot';
import { FRAMING_METHODS, decodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { posint, uint } from '../../../lib/config/options/numbers.js';
import { proxySchema } from '../../../lib/config/options/proxy.js';
import { cloudwConnectionEntries, requireRegionOrEndpoint } from '../../shared/cloudw/options.js';

/** The `cloudw_queue` source options. */
export const CloudwQueueSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('cloudw_queue'),
    queue_url: v.pipe(v.string(), v.url('must be a URL'), v.description('URL of the queue to receive from.')),
    ...cloudwConnectionEntries(),
    poll_secs: v.optional(v.pipe(uint(), v.maxValue(20, 'must be between 0 and 20 (the longest wait the queue service allows)'), v.description('Long-poll wait of each receive call, 0 to 20 seconds.')), 15),
    visibility_timeout_secs: v.optional(
      v.pipe(uint(), v.maxValue(43_200, 'must be between 0 and 43200 (12 hours)'), v.description('How long a received message stays hidden; one not deleted by then is received again.')),
      300,
    ),
    delete_message: v.optional(v.pipe(v.boolean(), v.description('Delete messages once their events are delivered (or, without acknowledgements, taken in).')), true),
    // as in Vector, the effective default is one client per CPU core
    client_concurrency: v.optional(v.pipe(posint(), v.description('Receive loops running at once; default one per CPU core.')), () => availableParallelism()),
    decoding: decodingSchema(['bytes', 'json', 'syslog'] as const),
    framing: v.optional(framingSchema(FRAMING_METHODS, 'bytes'), {}),
    proxy: proxySchema,
    acknowledgements: acknowledgementsSchema,
  }),
  requireRegionOrEndpoint(),
);
/** Validated `cloudw_queue` source options. */
export type CloudwQueueSourceConfig = v.InferOutput<typeof CloudwQueueSourceConfig>;
