/** The `timezone` option of the components that render strftime items or read naive timestamps. */
import * as v from 'valibot';
import { resolveTimezone } from '../../time/strftime.js';

/** A component's `timezone`: "local", "UTC" or an IANA name, checked at load. */
export const timezoneSchema = (description: string) =>
  v.pipe(
    v.string(),
    v.check((tz) => {
      try {
        resolveTimezone(tz);
        return true;
      } catch {
        return false;
      }
    }, 'must be "local", "UTC" or an IANA time zone name'),
    v.description(description),
  );
