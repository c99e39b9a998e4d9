/** Options of the `demo_logs` source. */
import * as v from 'valibot';
import { DECODING_CODECS, FRAMING_METHODS, decodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { uint } from '../../../lib/config/options/numbers.js';

/** Formats, with Vector's other names for two of them (`rfc5424`, `rfc3164`). */
const FORMATS = ['shuffle', 'apache_common', 'apache_error', 'syslog', 'bsd_syslog', 'json'] as const;
const FORMAT_ALIASES: Readonly<Record<string, (typeof FORMATS)[number]>> = { rfc5424: 'syslog', rfc3164: 'bsd_syslog' };

/** The `demo_logs` options; `batch_interval` is Vector's older name of `interval`. */
export const DemoLogsConfig = v.pipe(
  v.strictObject({
    type: v.literal('demo_logs'),
    format: v.optional(
      v.pipe(
        v.string(),
        v.transform((f) => FORMAT_ALIASES[f] ?? f),
        v.picklist(FORMATS),
      ),
      'shuffle',
    ),
    interval: v.optional(v.pipe(v.number(), v.minValue(0), v.description('Seconds between events; 0 = as fast as the pipeline takes them.'))),
    batch_interval: v.optional(v.pipe(v.number(), v.minValue(0))),
    count: v.optional(uint()),
    lines: v.optional(v.pipe(v.array(v.string()), v.minLength(1, 'must list at least one line'))),
    sequence: v.optional(v.boolean(), false),
    /** Each generated line is one input: framed (default: the whole line is one frame) and decoded. */
    framing: v.optional(framingSchema(FRAMING_METHODS, 'bytes'), {}),
    decoding: decodingSchema(DECODING_CODECS),
    acknowledgements: acknowledgementsSchema,
  }),
  v.transform(({ batch_interval, interval, ...rest }) => ({ ...rest, interval: interval ?? batch_interval ?? 1 })),
);
/** Validated `demo_logs` options. */
export type DemoLogsConfig = v.InferOutput<typeof DemoLogsConfig>;
