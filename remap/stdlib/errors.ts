/** Runtime errors of standard-library functions. */
import { VrlError } from '../runtime.js';

/** Throws a runtime error of the calling function. */
export function fail(message: string): never {
  throw new VrlError(message);
}
