/** Global options (Vector's names and defaults), the top level of a config beside sources/transforms/sinks. */
import * as v from 'valibot';
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from '../net/compression.js';
import { EnrichmentTablesSchema } from './enrichment-tables.js';
import { LOG_NAMESPACE_UNSUPPORTED } from './log-namespace.js';
import { posint } from './options/numbers.js';
import { proxySchema } from './options/proxy.js';

/** A Vector switch weir accepts only in its off position (what weir does), naming the table otherwise. */
const offOnly = (what: string) =>
  v.optional(v.pipe(v.boolean(), v.check((on) => !on, `${what} is not supported by weir yet; set it to false or leave it out`)), false);

export const GlobalOptionsSchema = v.strictObject({
  data_dir: v.optional(v.string(), '/var/lib/weir/'),
  acknowledgements: v.optional(v.strictObject({ enabled: v.optional(v.boolean(), false) }), {}),
  proxy: v.optional(proxySchema, {}),
  api: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean(), false),
      address: v.optional(v.pipe(v.string(), v.regex(/^(\[[^\]]+\]|[^:\s[\]]+):\d{1,5}$/, 'expected host:port, like 127.0.0.1:8686')), '127.0.0.1:8686'),
      playground: v.optional(v.boolean(), true),
      graphql: v.optional(v.boolean(), true),
    }),
    {},
  ),
  timezone: v.optional(v.string(), 'local'),
  healthchecks: v.optional(
    v.strictObject({ enabled: v.optional(v.boolean(), true), require_healthy: v.optional(v.boolean(), false) }),
    {},
  ),
  log_schema: v.optional(
    v.strictObject({
      message_key: v.optional(v.string(), 'message'),
      timestamp_key: v.optional(v.string(), 'timestamp'),
      host_key: v.optional(v.string(), 'host'),
      source_type_key: v.optional(v.string(), 'source_type'),
      metadata_key: v.optional(v.string(), 'metadata'),
    }),
    {},
  ),
  wildcard_matching: v.optional(v.picklist(['strict', 'relaxed']), 'strict'),
  expire_metrics_secs: v.optional(v.number()),
  max_decompressed_bytes: v.optional(posint(), DEFAULT_MAX_DECOMPRESSED_BYTES), // docs/limits.md
  /** Vector's `schema` table: weir keeps events in the legacy layout and tracks no schemas. */
  schema: v.optional(
    v.strictObject({
      log_namespace: v.optional(v.pipe(v.boolean(), v.check((on) => !on, `schema.log_namespace ${LOG_NAMESPACE_UNSUPPORTED}`)), false),
      enabled: offOnly('schema.enabled (schema tracking)'),
      validation: offOnly('schema.validation (sink schema requirements)'),
    }),
    {},
  ),
  /** Vector's `enrichment_tables`: CSV tables for remap's enrichment functions. */
  enrichment_tables: EnrichmentTablesSchema,
  /** Vector's `telemetry` table: the extra tags on component metrics are not emitted. */
  telemetry: v.optional(
    v.strictObject({
      tags: v.optional(
        v.strictObject({
          emit_service: offOnly('telemetry.tags.emit_service (the service tag on component metrics)'),
          emit_source: offOnly('telemetry.tags.emit_source (the source tag on component metrics)'),
        }),
        {},
      ),
    }),
    {},
  ),
});
export type GlobalOptions = v.InferOutput<typeof GlobalOptionsSchema>;

/** Defaults for library use (no config file). */
export const defaultGlobals = (): GlobalOptions => v.parse(GlobalOptionsSchema, {});
