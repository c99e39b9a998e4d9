/**
 * Vector's log namespacing: `schema.log_namespace` (global) and `log_namespace` on a source.
 * `false`, the default, is the legacy layout weir keeps; `true` would change the shape of every
 * event, which weir does not do yet, so it is refused with a message that says what it would change.
 */

/** Why `true` is refused, after the option's name. */
export const LOG_NAMESPACE_UNSUPPORTED =
  "= true (Vector's log namespacing) is not supported by weir yet: it would move the fields a source adds " +
  '(timestamp, host, source_type and the like) into event metadata and make the decoded `message` the root ' +
  'of the event instead of a field; weir keeps the legacy layout. Set it to false or leave it out';

/** The problem a source's `log_namespace` value raises, if any; only a boolean `false` passes. */
export function sourceLogNamespaceProblem(value: unknown): string | undefined {
  if (value === false) return undefined;
  if (value === true) return `log_namespace ${LOG_NAMESPACE_UNSUPPORTED}`;
  return `must be a boolean (false, the legacy layout, is the only value weir supports); got ${JSON.stringify(value)}`;
}

/**
 * A source's raw options without `log_namespace`, which its schema does not list (the key is
 * checked on its own by {@link sourceLogNamespaceProblem}); the same object when the key is absent.
 */
export function withoutLogNamespace(raw: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(raw, 'log_namespace')) return raw;
  const { log_namespace: _ignored, ...rest } = raw;
  return rest;
}
