/**
 * Options Vector has that weir does not implement yet, so `weir validate` can tell a Vector option
 * apart from a typo: "not supported by weir yet" instead of "unknown option". Those of every
 * component of a kind are here; a component's own are in its definition (`vectorOptions`).
 * Deliberately short (the options Vector configs use most), not a copy of Vector's schema.
 */
import type { ComponentKind } from '../component.js';

/** Option paths (dotted, as a config writes them) Vector accepts on every component of a kind. */
const EVERY: Readonly<Record<ComponentKind, readonly string[]>> = {
  source: [],
  transform: [],
  sink: ['healthcheck_uri', 'dangerously_allow_unconfined_template_resolution'],
};

/** Vector options that weir refuses with their own message. */
const SPECIFIC: Readonly<Record<ComponentKind, Readonly<Record<string, string>>>> = {
  source: {},
  transform: {},
  sink: {},
};

/**
 * The message for an unknown option that is a Vector option of components of this kind, or of
 * this component (`own`: its definition's `vectorOptions`); `path` dotted:
 * `acknowledgements.indexer_acknowledgements_enabled`. Undefined for a typo.
 */
export function vectorOptionMessage(kind: ComponentKind, own: readonly string[], path: string): string | undefined {
  const specific = SPECIFIC[kind][path];
  if (specific !== undefined) return specific;
  const known = [...EVERY[kind], ...own];
  return known.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)) ? NOT_SUPPORTED_YET : undefined;
}

/** The message for such an option. */
export const NOT_SUPPORTED_YET = 'not supported by weir yet (a Vector option weir does not implement)';
