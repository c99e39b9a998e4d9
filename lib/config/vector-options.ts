/**
 * Options Vector has that weir does not implement yet, per component type, so `weir validate`
 * can tell a Vector option apart from a typo: "not supported by weir yet" instead of "unknown
 * option". Deliberately short (the options Vector configs use most), not a copy of Vector's schema.
 */
import type { ComponentKind } from '../component.js';

/** Option paths (dotted, as a config writes them) Vector accepts on every component of a kind. */
const EVERY: Readonly<Record<ComponentKind, readonly string[]>> = {
  source: ['log_namespace'],
  transform: [],
  sink: ['healthcheck_uri', 'dangerously_allow_unconfined_template_resolution'],
};

/** Vector options that weir refuses with their own message. */
const SPECIFIC: Readonly<Record<ComponentKind, Readonly<Record<string, string>>>> = {
  source: {},
  transform: {},
  sink: {},
};

/** Option paths per weir type token. A listed path also covers the options below it. */
const BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  socket: [
    'permit_origin',
    'multicast_groups',
    'multicast_interface',
    'socket_file_mode',
    'max_connection_duration_secs',
    'tls_handshake_timeout_secs',
    'send_buffer_bytes',
    'tls',
  ],
  reduce: ['max_events', 'end_every_period_ms'],
  file: ['internal_metrics', 'truncate', 'base_dir'],
  labelstore: ['structured_metadata', 'remove_structured_metadata_fields', 'encoding'],
  tsdb_metrics: ['version'],
  logsvc_metrics: ['metric_tag_values'],
};

/**
 * The message for an unknown option that is a Vector option of components of this kind and type
 * (`path` dotted: `acknowledgements.indexer_acknowledgements_enabled`), or undefined for a typo.
 */
export function vectorOptionMessage(kind: ComponentKind, type: string, path: string): string | undefined {
  const specific = SPECIFIC[kind][path];
  if (specific !== undefined) return specific;
  const known = [...EVERY[kind], ...(BY_TYPE[type] ?? [])];
  return known.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)) ? NOT_SUPPORTED_YET : undefined;
}

/** The message for such an option. */
export const NOT_SUPPORTED_YET = 'not supported by weir yet (a Vector option weir does not implement)';
