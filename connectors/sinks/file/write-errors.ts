/**
 * What a failed open or write of the `file` sink is about: the path of some events (those events
 * are rejected, the sink goes on) or the sink's environment (out of descriptors, disk full: the
 * write is retried with backoff, nothing is dropped).
 */

/** Errors of the environment that may clear: retried. */
const TRANSIENT = new Set(['EMFILE', 'ENFILE', 'ENOSPC', 'EDQUOT', 'EIO', 'EAGAIN', 'EBUSY', 'EINTR', 'ENOMEM']);

/** Out of file descriptors: closing the other open files may free one. */
export const isOutOfDescriptors = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
};

/**
 * True when the error may clear by itself. Everything else (EISDIR, ENOTDIR, ENAMETOOLONG,
 * EACCES, a NUL byte in the rendered path …) is about the path, so retrying cannot help.
 */
export const isTransientWriteError = (err: unknown): boolean => TRANSIENT.has((err as NodeJS.ErrnoException | undefined)?.code ?? '');
