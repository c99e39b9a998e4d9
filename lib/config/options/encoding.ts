/** Options every encoding takes besides the codec, and the `compression` option. */
import * as v from 'valibot';
import { fieldPathSchema } from './field-path.js';

/** `only_fields` / `except_fields`: field paths inside the event (the root `.` names no field). */
const fieldList = (name: 'only_fields' | 'except_fields', description: string) =>
  v.optional(v.array(fieldPathSchema(description, { invalid: `each ${name} entry must be a field path such as "a.b" or "list[0]"`, notRoot: true })));

/** The `encoding` keys that do not depend on the codec, in the order the encoding groups list them. */
export const encodingCommon = {
  only_fields: fieldList('only_fields', 'Field to keep; the others are left out of the encoded event.'),
  except_fields: fieldList('except_fields', 'Field left out of the encoded event.'),
  timestamp_format: v.optional(
    v.pipe(
      v.picklist(['rfc3339', 'unix', 'unix_ms', 'unix_us', 'unix_ns', 'unix_float']),
      v.description('How timestamps are written: RFC 3339 text, or a number since the Unix epoch in the named unit.'),
    ),
    'rfc3339',
  ),
};

/** `compression` with the codecs a sink offers and its default. */
export const compressionSchema = <const T extends readonly [string, ...string[]]>(allowed: T, dflt: T[number]) =>
  v.optional(v.picklist(allowed), dflt);
