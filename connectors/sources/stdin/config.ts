/** Options of the `stdin` source. */
import * as v from 'valibot';
import { DECODING_CODECS, FRAMING_METHODS, decodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';

/** The `stdin` source options (framing by default per codec: newline-delimited, length-delimited for native). */
export const StdinSourceConfig = v.strictObject({
  type: v.literal('stdin'),
  framing: v.optional(framingSchema(FRAMING_METHODS), {}),
  decoding: decodingSchema(DECODING_CODECS),
  max_length: v.optional(v.pipe(posint(), v.description('Longest frame in bytes when the framing sets none; longer frames are discarded.')), 102_400),
  host_key: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  acknowledgements: acknowledgementsSchema,
});
/** Validated `stdin` source options. */
export type StdinSourceConfig = v.InferOutput<typeof StdinSourceConfig>;
