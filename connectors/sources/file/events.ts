/** Internal events of the `file` source: each logs and counts together, with Vector's metric names. */
import type { ComponentContext, SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus } from '../../../lib/event.js';

/** Counters bound once per source. */
export interface FileEvents {
  /** A file is watched from now on; `resumed` when a checkpoint gave its position. */
  fileAdded(path: string, position: number, resumed: boolean): void;
  /** A file is no longer watched (rotated away or deleted and read to its end, or replaced). */
  fileUnwatched(path: string, reason: string): void;
  /** remove_after_secs: a file read to its end was deleted. */
  fileDeleted(path: string): void;
  /** remove_after_secs: a file could not be deleted; tried again later. */
  fileDeleteFailed(path: string, err: NodeJS.ErrnoException): void;
  /** A file shrank below the read position: it is read again from its start. */
  fileTruncated(path: string, position: number): void;
  /** A line longer than max_line_bytes was discarded. */
  lineTooLong(path: string, bytes: number, max: number): void;
  /** A path could not be listed, opened or read (permission denied …); other files go on. */
  fileFailed(path: string, stage: 'listing' | 'opening' | 'reading', err: NodeJS.ErrnoException): void;
  /** A listed file could not be found when opened for its fingerprint (unless ignore_not_found). */
  fingerprintReadFailed(path: string, err: NodeJS.ErrnoException): void;
  /** A file's first lines could not be read for its checksum. */
  checksumFailed(path: string, err: NodeJS.ErrnoException): void;
  /** The checkpoints were written. */
  checkpointsWritten(count: number): void;
  /** The checkpoints could not be written; a restart may read lines again. */
  checkpointsFailed(path: string, err: unknown): void;
  /** Lines were not delivered: that file's checkpoint stays before them until the source restarts. */
  checkpointHeld(path: string, status: DeliveryStatus): void;
}

/**
 * Counts and logs a discarded over-long line; in a module without file system access, as pipeline
 * workers discard the long lines of the pieces they cut (decoder.ts).
 */
export function lineTooLongReporter(ctx: ComponentContext): FileEvents['lineTooLong'] {
  const t = ctx.telemetry;
  const tooLong = t.counter('component_discarded_events_total', { intentional: 'false' });
  const tooLongErrors = t.counter('component_errors_total', { error_type: 'condition_failed', stage: 'receiving' });
  return (path, bytes, max) => {
    tooLong.add(1);
    tooLongErrors.add(1);
    // the logger rate-limits repeats of one message
    ctx.log.warn('Found line that exceeds max_line_bytes; discarding.', { file: path, bytes, max_line_bytes: max });
  };
}

/** A per-file counter: tagged with the path under `internal_metrics.include_file_tag`, else one counter bound once. */
type FileCounter = (path: string) => { add(n: number): void };

/** Binds the counters of one source; `fileTag` adds a `file` tag to the per-file ones, as Vector's option does. */
export function fileEvents(ctx: SourceContext, fileTag = false): FileEvents {
  const t = ctx.telemetry;
  const perFile = (name: string): FileCounter => {
    if (fileTag) return (path) => t.counter(name, { file: path });
    const c = t.counter(name);
    return () => c;
  };
  const added = perFile('files_added_total');
  const resumed = perFile('files_resumed_total');
  const unwatched = perFile('files_unwatched_total');
  const checkpoints = t.counter('checkpoints_total');
  const deleted = perFile('files_deleted_total');
  const deleteErrors = t.counter('component_errors_total', { error_type: 'deletion_failed', stage: 'receiving' });
  const checksumErrors = perFile('checksum_errors_total');
  const lineTooLong = lineTooLongReporter(ctx);
  const readErrors = t.counter('component_errors_total', { error_type: 'reader_failed', stage: 'receiving' });
  const fingerprintErrors = (path: string) =>
    t.counter('component_errors_total', { error_code: 'reading_fingerprint', error_type: 'reader_failed', stage: 'receiving', ...(fileTag ? { file: path } : {}) });
  const writeErrors = t.counter('component_errors_total', { error_type: 'writer_failed', stage: 'processing' });
  // one warning per path and stage: a file that stays unreadable is not reported every second
  const reported = new Set<string>();
  return {
    fileAdded(path, position, isResumed) {
      added(path).add(1);
      if (isResumed) resumed(path).add(1);
      ctx.log.info(isResumed ? 'Resuming to watch file.' : 'Found new file to watch.', { file: path, file_position: position });
    },
    fileUnwatched(path, reason) {
      unwatched(path).add(1);
      ctx.log.info('Stopped watching file.', { file: path, reason });
    },
    fileDeleted(path) {
      deleted(path).add(1);
      ctx.log.info('File deleted.', { file: path });
    },
    fileDeleteFailed(path, err) {
      deleteErrors.add(1);
      ctx.log.warn('Failed deleting file; trying again later.', { file: path, error: err.message });
    },
    fileTruncated(path, position) {
      ctx.log.info('File shrank below the read position (truncated).', { file: path, file_position: position });
    },
    lineTooLong,
    fileFailed(path, stage, err) {
      readErrors.add(1);
      const key = `${stage}\0${path}`;
      if (reported.has(key)) return;
      reported.add(key);
      ctx.log.error(`Failed ${stage} file; skipping it.`, { file: path, error: err.message, code: err.code ?? '' });
    },
    fingerprintReadFailed(path, err) {
      fingerprintErrors(path).add(1);
      const key = `fingerprint\0${path}`;
      if (reported.has(key)) return;
      reported.add(key);
      ctx.log.error('Failed reading file for fingerprinting.', { file: path, error: err.message, code: err.code ?? '' });
    },
    checksumFailed(path, err) {
      checksumErrors(path).add(1);
      ctx.log.error('Failed reading the first lines for the file checksum.', { file: path, error: err.message });
    },
    checkpointsWritten(count) {
      checkpoints.add(1);
      ctx.log.debug('Files checkpointed.', { count });
    },
    checkpointsFailed(path, err) {
      writeErrors.add(1);
      ctx.log.error('Could not write the file checkpoints.', { path, error: (err as Error).message });
    },
    checkpointHeld(path, status) {
      ctx.log.warn('Lines were not delivered; the checkpoint of their file stays before them until the source restarts.', { file: path, status });
    },
  };
}
