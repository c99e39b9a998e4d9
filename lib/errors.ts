/**
 * Error codes of weir (Fastify's FST_ERR_* style): one catalogue, message templates in one place.
 */
export const ErrorCodes = {
  WEIR_ERR_CONFIG_SYNTAX: 'syntax error',
  WEIR_ERR_CONFIG_ENV: 'environment variable',
  WEIR_ERR_CONFIG_UNKNOWN_TYPE: 'unknown component type',
  WEIR_ERR_CONFIG_OPTION: 'invalid option',
  WEIR_ERR_CONFIG_DUPLICATE_ID: 'duplicate component id',
  WEIR_ERR_CONFIG_ID: 'invalid component id',
  WEIR_ERR_CONFIG_INPUTS: 'invalid inputs',
  WEIR_ERR_CONFIG_CYCLE: 'cycle',
  WEIR_ERR_CONFIG_GRAPH: 'invalid topology',
  WEIR_ERR_CONFIG_GLOBAL: 'invalid global option',
  WEIR_ERR_CONFIG_FILE: 'unreadable file',
} as const;
export type ErrorCode = keyof typeof ErrorCodes;

/** One configuration problem, located as precisely as known. */
export interface ConfigProblem {
  readonly code: ErrorCode;
  /** File the problem is in, when it belongs to one. */
  readonly file?: string;
  /** `sources.in`, `sinks.out`, … */
  readonly component?: string;
  /** Dotted option path inside the component (`batch.max_events`). */
  readonly path?: string;
  readonly message: string;
}

/** Formats a problem as one line: `file: sinks.out.batch.max_events: message`. */
export function formatProblem(p: ConfigProblem): string {
  const where = [p.component, p.path].filter(Boolean).join('.');
  return `${p.file ? p.file + ': ' : ''}${where ? where + ': ' : ''}${p.message} [${p.code}]`;
}

/** Thrown when a configuration cannot be loaded; carries every problem found. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
  }
}
