/** Internal events of the `journal` source: each logs and counts together, as Vector's do. */
import type { ComponentContext } from '../../../lib/component.js';
import type { DeliveryStatus } from '../../../lib/event.js';

/** The internal events of one source, counters bound once. */
export interface JournalEvents {
  /** A line that is not a journal record; skipped. */
  invalidRecord(text: string, reason: string, bytes: number): void;
  /** journalctl could not start or ended; it is started again after `delayMs`. */
  journalctlEnded(reason: string, delayMs: number, failed: boolean): void;
  /** A line journalctl wrote on stderr. */
  journalctlStderr(line: string): void;
  /** The cursor could not be saved; a restart may repeat entries. */
  checkpointFailed(path: string, err: unknown): void;
  /** A batch was not delivered: the checkpoint stays before it for this run, so a restart reads it again. */
  checkpointHeld(status: DeliveryStatus): void;
}

/** Binds the counters of one source. */
export function journalEvents(ctx: ComponentContext): JournalEvents {
  const t = ctx.telemetry;
  const invalid = t.counter('invalid_record_total');
  const invalidBytes = t.counter('invalid_record_bytes_total');
  const parserFailed = t.counter('component_errors_total', { error_type: 'parser_failed', stage: 'processing' });
  const commandFailed = t.counter('component_errors_total', { error_type: 'command_failed', stage: 'receiving' });
  const writerFailed = t.counter('component_errors_total', { error_type: 'writer_failed', stage: 'processing' });
  return {
    invalidRecord(text, reason, bytes) {
      invalid.add(1);
      invalidBytes.add(bytes);
      parserFailed.add(1);
      ctx.log.warn('Invalid journal record; skipped.', { error: reason, text: text.length > 256 ? `${text.slice(0, 256)}…` : text });
    },
    journalctlEnded(reason, delayMs, failed) {
      if (failed) commandFailed.add(1);
      ctx.log.warn('journalctl stopped; restarting.', { reason, restart_in_ms: delayMs });
    },
    journalctlStderr(line) {
      ctx.log.warn('journalctl: ' + line);
    },
    checkpointFailed(path, err) {
      writerFailed.add(1);
      ctx.log.error('Could not save the journal checkpoint.', { path, error: (err as Error).message });
    },
    checkpointHeld(status) {
      ctx.log.warn('Events were not delivered; the checkpoint stays before them until the source restarts.', { status });
    },
  };
}
