/**
 * The top-level `enrichment_tables` (Vector's): named tables remap's enrichment functions search.
 * weir reads `file` tables (CSV); `geoip`, `mmdb` and `memory` tables are refused by name.
 */
import * as v from 'valibot';

// Vector's conversion names; a format (`timestamp|%F`, `date|%d/%m/%Y`) only after timestamp or date
const SCHEMA_TYPE = /^\s*(?:(?:asis|bytes|string|int|integer|float|bool|boolean)|(?:timestamp|date)(?:\s*\|.*)?)\s*$/s;

const csvEncoding = v.strictObject({
  type: v.pipe(v.literal('csv'), v.description('The file format; only csv.')),
  include_headers: v.optional(v.pipe(v.boolean(), v.description('The first row names the columns; otherwise columns are named by index ("0", "1", …).')), true),
  delimiter: v.optional(v.pipe(v.string(), v.length(1, 'must be a single character'), v.description('The field delimiter.')), ','),
});

const fileTable = v.strictObject({
  type: v.literal('file'),
  file: v.strictObject({
    path: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Path of the CSV file.')),
    encoding: v.optional(csvEncoding, { type: 'csv' }),
  }),
  schema: v.optional(
    v.pipe(
      v.record(v.string(), v.pipe(v.string(), v.regex(SCHEMA_TYPE, 'must be one of string, bytes, asis, integer, int, float, boolean, bool, timestamp, timestamp|<format>, date, date|<format>'))),
      v.description('Column types: columns read as strings unless named here.'),
    ),
    {},
  ),
});

/** Vector's other table types, named rather than taken for typos. */
const unsupported = (type: string) =>
  v.pipe(
    v.looseObject({ type: v.literal(type) }),
    v.check(() => false, `type "${type}" enrichment tables are not supported by weir yet; only "file" is`),
    // never reached (the check fails): keeps the parsed type to file tables
    v.transform((): never => {
      throw new Error('unreachable');
    }),
  );

/** One table; only `type = "file"` is available. */
export const EnrichmentTableSchema = v.variant('type', [fileTable, unsupported('geoip'), unsupported('mmdb'), unsupported('memory')], 'type must be "file"');
export type EnrichmentTableConfig = v.InferOutput<typeof fileTable>;

/** `enrichment_tables`: table name → table. */
export const EnrichmentTablesSchema = v.optional(v.record(v.string(), EnrichmentTableSchema), {});
