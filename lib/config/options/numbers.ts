/** Number options with the bounds most options share; each caller adds its own description. */
import * as v from 'valibot';

/** Non-negative integer. */
export const uint = () => v.pipe(v.number(), v.integer(), v.minValue(0));
/** Positive integer. */
export const posint = () => v.pipe(v.number(), v.integer(), v.minValue(1));
/** Seconds as float or integer, >= 0. */
export const secs = () => v.pipe(v.number(), v.minValue(0));
