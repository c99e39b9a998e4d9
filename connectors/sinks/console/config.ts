/** Options of the `console` sink. */
import * as v from 'valibot';
import { ENCODING_CODECS, FRAMING_METHODS, encodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';

/** The `console` sink options; `encoding.codec` is required. */
export const ConsoleSinkConfig = sinkObject('console', {
  target: v.optional(v.pipe(v.picklist(['stdout', 'stderr']), v.description('Standard stream to write to.')), 'stdout'),
  encoding: encodingSchema(ENCODING_CODECS),
  framing: v.optional(framingSchema(FRAMING_METHODS, undefined, 'encode'), {}),
});
/** Validated `console` sink options. */
export type ConsoleSinkConfig = v.InferOutput<typeof ConsoleSinkConfig>;
