/** `batch.*`: when a sink closes a batch and sends it. */
import * as v from 'valibot';
import { posint } from './numbers.js';

/** A sink's batch defaults, as Vector documents them per sink; an unset limit does not apply. */
export interface BatchDefaults {
  max_bytes?: number;
  max_events?: number;
  timeout_secs: number;
}

/** The entries of `batch.*` with the sink's defaults, for a sink that adds its own batch options. */
export function batchEntries(d: BatchDefaults) {
  return {
    max_bytes: v.optional(v.pipe(posint(), v.description('Most bytes of events in one batch, measured before encoding and compression.')), d.max_bytes),
    max_events: v.optional(v.pipe(posint(), v.description('Most events in one batch.')), d.max_events),
    timeout_secs: v.optional(
      v.pipe(v.number(), v.minValue(0.001, 'must be greater than 0'), v.description('Seconds after its first event that a batch is sent, full or not.')),
      d.timeout_secs,
    ),
  };
}

/** `batch.*` with the sink's defaults; a batch closes at whichever limit it reaches first. */
export function batchSchema(d: BatchDefaults) {
  return v.optional(v.strictObject(batchEntries(d)), {});
}
