/** Global options (reference §12.6), the top level of a config beside sources/transforms/sinks. */
import * as v from 'valibot';
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from '../net/compression.js';
import { posint, proxySchema } from './shared.js';

export const GlobalOptionsSchema = v.strictObject({
  data_dir: v.optional(v.string(), '/var/lib/weir/'),
  acknowledgements: v.optional(v.strictObject({ enabled: v.optional(v.boolean(), false) }), {}),
  proxy: v.optional(proxySchema, {}),
  api: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean(), false),
      address: v.optional(v.string(), '127.0.0.1:8686'),
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
});
export type GlobalOptions = v.InferOutput<typeof GlobalOptionsSchema>;

/** Defaults for library use (no config file). */
export const defaultGlobals = (): GlobalOptions => v.parse(GlobalOptionsSchema, {});
