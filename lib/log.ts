/**
 * The daemon's own log: leveled (`-v`, `-q`, WEIR_LOG), one line per record on stderr (text, or
 * JSON with `--log-format json`), and rate-limited per message key so a flood of identical errors
 * prints once per window with a count.
 */
export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };
export const LEVELS = Object.keys(ORDER) as Level[];

export interface Logger {
  trace(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A child that adds fields (component_id, …) to every record. */
  child(fields: Record<string, unknown>): Logger;
}

export interface LogSink {
  write(line: string): void;
}

/** How records are written: `text` (one readable line) or `json` (one JSON object per line). */
export type LogFormat = 'text' | 'json';

/** ANSI colours of the level names in text lines. */
const LEVEL_COLOURS: Record<Level, string> = { trace: '\x1b[35m', debug: '\x1b[34m', info: '\x1b[32m', warn: '\x1b[33m', error: '\x1b[31m' };

/** Shared state of one log output: level, rate-limit windows, destination. */
export class LogRoot {
  level: Level;
  /** Record layout; `json` writes `{"timestamp","level","message",…fields}` per line. */
  format: LogFormat = 'text';
  /** Colour the level names of text lines (`--color`). */
  isColoured = false;
  private readonly windows = new Map<string, { until: number; suppressed: number }>();
  constructor(
    level: Level = 'info',
    private readonly out: LogSink = { write: (l) => process.stderr.write(l) },
    /** Window for identical messages (Vector: 10 s internal log rate limit). */
    readonly rateLimitMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.level = level;
  }

  /**
   * Set in a worker thread: records that pass the level and rate limit go to the main thread's
   * root instead of being written here (docs/threads.md).
   */
  forward: ((level: Level, msg: string, fields: Record<string, unknown>) => void) | undefined;

  emit(level: Level, msg: string, fields: Record<string, unknown>): void {
    if (ORDER[level] < ORDER[this.level]) return;
    if (ORDER[level] >= ORDER.warn) {
      const key = `${level}|${fields.component_id ?? ''}|${msg}`;
      const t = this.now();
      const w = this.windows.get(key);
      if (w && t < w.until) {
        w.suppressed++;
        return;
      }
      if (w && w.suppressed > 0) fields = { ...fields, internal_log_rate_limit_suppressed: w.suppressed };
      this.windows.set(key, { until: t + this.rateLimitMs, suppressed: 0 });
      if (this.windows.size > 10_000) this.windows.clear();
    }
    if (this.forward) return this.forward(level, msg, fields);
    const timestamp = new Date(this.now()).toISOString();
    if (this.format === 'json') {
      const record: Record<string, unknown> = { timestamp, level: level.toUpperCase(), message: msg, target: 'weir' };
      for (const k in fields) {
        const v = fields[k];
        record[k] = v instanceof Error ? v.message : v;
      }
      this.out.write(JSON.stringify(record) + '\n');
      return;
    }
    const name = level.toUpperCase().padEnd(5);
    let line = `${timestamp} ${this.isColoured ? `${LEVEL_COLOURS[level]}${name}\x1b[0m` : name} ${msg}`;
    for (const k in fields) {
      const v = fields[k];
      line += ` ${k}=${typeof v === 'string' && !/[\s"=]/.test(v) ? v : JSON.stringify(v instanceof Error ? v.message : v)}`;
    }
    this.out.write(line + '\n');
  }

  /**
   * Ends the rate-limit window of one message (a state it reports changed, e.g. a reload
   * succeeded): the next record prints at once, with the count of repeats folded so far.
   */
  endRepeats(level: Level, msg: string, componentId = ''): void {
    const w = this.windows.get(`${level}|${componentId}|${msg}`);
    if (w) w.until = 0;
  }

  logger(fields: Record<string, unknown> = {}): Logger {
    const root = this;
    const mk = (lvl: Level) => (msg: string, f?: Record<string, unknown>) => root.emit(lvl, msg, f ? { ...fields, ...f } : fields);
    return {
      trace: mk('trace'),
      debug: mk('debug'),
      info: mk('info'),
      warn: mk('warn'),
      error: mk('error'),
      child: (more) => root.logger({ ...fields, ...more }),
    };
  }
}

/** Level from WEIR_LOG and -v/-q counts (each -v one level more verbose, each -q less). */
export function levelFrom(env: string | undefined, verbose: number, quiet: number): Level {
  const base = env && (LEVELS as string[]).includes(env.toLowerCase()) ? (env.toLowerCase() as Level) : 'info';
  const idx = Math.max(0, Math.min(LEVELS.length - 1, ORDER[base] - verbose + quiet));
  return LEVELS[idx]!;
}

/** A logger that drops everything (library use without a daemon). */
export const silentLogger: Logger = new LogRoot('error', { write() {} }).logger();
