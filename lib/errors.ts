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
  WEIR_ERR_CONFIG_UNSUPPORTED: 'not supported yet',
} as const;
export type ErrorCode = keyof typeof ErrorCodes;

/** One configuration problem, located as precisely as known. */
export interface ConfigProblem {
  readonly code: ErrorCode;
  /** File the problem is in, when it belongs to one. */
  readonly file?: string;
  /** 1-based line and column in the file (syntax errors). */
  readonly line?: number;
  readonly column?: number;
  /** `sources.in`, `sinks.out`, … */
  readonly component?: string;
  /** Dotted option path inside the component (`batch.max_events`). */
  readonly path?: string;
  readonly message: string;
}

/** Formats a problem as one line: `file: sinks.out.batch.max_events: message`, or `file:3:7: message`. */
export function formatProblem(p: ConfigProblem): string {
  const where = [p.component, p.path].filter(Boolean).join('.');
  return `${locate(p)}${where ? where + ': ' : ''}${p.message} [${p.code}]`;
}

/** `file: `, `file:3: `, `file:3:7: `, or `line 3, column 7: ` for text that has no file. */
function locate(p: ConfigProblem): string {
  if (p.line === undefined) return p.file ? `${p.file}: ` : '';
  if (p.file) return `${p.file}:${p.line}${p.column === undefined ? '' : `:${p.column}`}: `;
  return `line ${p.line}${p.column === undefined ? '' : `, column ${p.column}`}: `;
}

/** Thrown when a configuration cannot be loaded; carries every problem found. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
  }
}
