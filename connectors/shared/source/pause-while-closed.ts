/**
 * Backpressure for push sources that read streams: after an emission a source asks to
 * pause the stream it read from; while the output gate is closed that stream stops reading, so
 * the kernel buffers fill and TCP (or the pipe) pushes back on the writer. When the gate opens
 * every paused stream resumes at once.
 */
import type { Subscription } from 'rxjs';
import { type Gate, whenOpen } from '../../../lib/gate.js';

/** What pausing needs of a stream: net.Socket, tls.TLSSocket, process.stdin, any stream.Readable. */
export interface Pausable {
  pause(): unknown;
  resume(): unknown;
}

/** The paused streams of one gate. */
export interface PauseWhileClosed {
  /** Pauses `stream` if the gate is closed (call after each emission); true when it paused. */
  pauseIfClosed(stream: Pausable): boolean;
  /** Drops a stream that closed, so opening the gate does not resume it. */
  forget(stream: Pausable): void;
  /** Stops waiting for the gate; streams still paused stay paused. */
  close(): void;
}

/**
 * Tracks the streams paused on `gate`. At most one subscription to the gate exists, taken when
 * the first stream pauses and released when the gate opens, however many streams wait.
 */
export function pauseWhileClosed(gate: Gate): PauseWhileClosed {
  const paused = new Set<Pausable>();
  let waiting: Subscription | undefined;
  const resumeAll = () => {
    waiting = undefined;
    // resume() may emit synchronously on some streams and pause again: resume a snapshot
    const streams = [...paused];
    paused.clear();
    for (const s of streams) s.resume();
  };
  return {
    pauseIfClosed(stream) {
      if (gate.isOpen) return false;
      stream.pause();
      paused.add(stream);
      if (waiting === undefined) {
        const sub = whenOpen(gate).subscribe(resumeAll);
        // a gate that reopened during subscribe has already resumed everything
        waiting = sub.closed ? undefined : sub;
      }
      return true;
    },
    forget(stream) {
      paused.delete(stream);
    },
    close() {
      waiting?.unsubscribe();
      waiting = undefined;
      paused.clear();
    },
  };
}
