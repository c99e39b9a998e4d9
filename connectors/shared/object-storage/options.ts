/**
 * The object-naming options shared by the object-storage sinks (as Vector
 * documents them), declared once: each sink spreads {@link objectNamingEntries} into its schema.
 */
import * as v from 'valibot';
import { throwsNot } from '../../../lib/config/options/checks.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { timezoneSchema } from '../../../lib/config/options/timezone.js';
import { compileFormat } from '../../../lib/time/strftime.js';

/** `key_prefix` default; the trailing `/` makes it a folder. */
export const DEFAULT_KEY_PREFIX = 'date=%F/';
/** `filename_time_format` default (epoch seconds). */
export const DEFAULT_FILENAME_TIME_FORMAT = '%s';

/** Valibot entries of the naming options; `filename_extension` unset = derived from `compression`. */
export const objectNamingEntries = {
  key_prefix: v.optional(
    templateSchema(
      'Prefix of object names: a template with `{{ field }}` references and strftime items rendered from the event timestamp; events are grouped into objects by the rendered prefix. End it with `/` to make it a folder.',
    ),
    DEFAULT_KEY_PREFIX,
  ),
  filename_time_format: v.optional(
    v.pipe(v.string(), throwsNot(compileFormat), v.description('strftime format of the time part of object names (the time the object is written).')),
    DEFAULT_FILENAME_TIME_FORMAT,
  ),
  filename_append_uuid: v.optional(v.pipe(v.boolean(), v.description('Append `-<uuid v4>` to the time part, so objects written in the same second do not overwrite each other.')), true),
  filename_extension: v.optional(
    v.pipe(v.string(), v.check((s) => !s.startsWith('.'), 'without the leading dot (e.g. "json")'), v.description('Extension of object names; default `log`, `log.gz` with gzip.')),
  ),
  timezone: v.optional(timezoneSchema('Time zone of the strftime items in `key_prefix` and `filename_time_format`; overrides the global timezone.')),
};

/** The validated naming options. */
export interface ObjectNamingConfig {
  readonly key_prefix: string;
  readonly filename_time_format: string;
  readonly filename_append_uuid: boolean;
  readonly filename_extension?: string | undefined;
  readonly timezone?: string | undefined;
}
