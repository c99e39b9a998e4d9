/** Internal events of the `journal` source: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';

/** Counters bound once per source. */
export function journalTelemetry(ctx: ComponentContext) {
  const t = ctx.telemetry;
  return {
    receivedBytes: t.counter('component_received_bytes_total'),
    invalid: t.counter('invalid_record_total'),
    invalidBytes: t.counter('invalid_record_bytes_total'),
    parserFailed: t.counter('component_errors_total', { error_type: 'parser_failed', stage: 'processing' }),
    commandFailed: t.counter('component_errors_total', { error_type: 'command_failed', stage: 'receiving' }),
    checkpointFailed: t.counter('component_errors_total', { error_type: 'writer_failed', stage: 'processing' }),
    lag: t.histogram('source_lag_time_seconds'),
  };
}
/** The bound counters of one source. */
export type JournalTelemetry = ReturnType<typeof journalTelemetry>;

/** A line that is not a journal record; skipped. */
export function invalidRecord(ctx: ComponentContext, t: JournalTelemetry, text: string, reason: string, bytes: number): void {
  t.invalid.add(1);
  t.invalidBytes.add(bytes);
  t.parserFailed.add(1);
  ctx.log.warn('Invalid journal record; skipped.', { error: reason, text: text.length > 256 ? `${text.slice(0, 256)}…` : text });
}

/** journalctl could not start or ended; it is started again after `delayMs`. */
export function journalctlEnded(ctx: ComponentContext, t: JournalTelemetry, reason: string, delayMs: number, failed: boolean): void {
  if (failed) t.commandFailed.add(1);
  ctx.log.warn('journalctl stopped; restarting.', { reason, restart_in_ms: delayMs });
}

/** A line journalctl wrote on stderr. */
export function journalctlStderr(ctx: ComponentContext, line: string): void {
  ctx.log.warn('journalctl: ' + line);
}

/** The cursor could not be saved; a restart may repeat entries. */
export function checkpointFailed(ctx: ComponentContext, t: JournalTelemetry, path: string, err: unknown): void {
  t.checkpointFailed.add(1);
  ctx.log.error('Could not save the journal checkpoint.', { path, error: (err as Error).message });
}
