/**
 * Backpressure for push sources that read streams: after an emission a source asks to
 * pause the stream it read from; while the output gate is closed that stream stops reading, so
 * the kernel buffers fill and TCP (or the pipe) pushes back on the writer. When the gate opens
 * the paused streams resume in the order they paused, {@link RESUME_PER_TURN} per turn of the
 * event loop while it stays open.
 *
 * Why not all at once: a stream cannot be stopped before the read it has started, so each resumed
 * stream delivers one read (up to 64 KiB from a socket) even when the gate closes again on the
 * first. With 1,000 connections resumed together that was 1,000 reads in memory at every opening;
 * in rounds it is at most a round's, and the order keeps every stream its turn.
 */
import { type SchedulerLike, type Subscription, type Unsubscribable, asyncScheduler } from 'rxjs';
import { type Gate, whenOpen } from '../../../lib/gate.js';
import { nextTurn } from './next-turn.js';

/** Paused streams resumed per turn of the event loop while the gate is open. */
export const RESUME_PER_TURN = 32;

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
 * Tracks the streams paused on `gate`. At most one subscription to the gate (or one scheduled
 * round) exists, however many streams wait. `scheduler` paces the rounds (the source's).
 */
export function pauseWhileClosed(gate: Gate, scheduler: SchedulerLike = asyncScheduler): PauseWhileClosed {
  // a Set iterates in insertion order: the longest-paused stream first
  const paused = new Set<Pausable>();
  let waiting: Subscription | Unsubscribable | undefined;
  const wait = () => {
    if (waiting !== undefined || paused.size === 0) return;
    if (!gate.isOpen) {
      const sub = whenOpen(gate).subscribe(resumeRound);
      // a gate that reopened during subscribe has already run a round
      if (!sub.closed) waiting = sub;
    } else waiting = nextTurn(scheduler, resumeRound);
  };
  const resumeRound = () => {
    waiting = undefined;
    // closed again since this round was scheduled: the next opening runs it
    if (!gate.isOpen) return wait();
    // resume() may emit synchronously and pause the stream again (it then goes to the back)
    const round: Pausable[] = [];
    for (const s of paused) {
      if (round.length === RESUME_PER_TURN) break;
      round.push(s);
    }
    for (const s of round) paused.delete(s);
    for (const s of round) s.resume();
    wait();
  };
  return {
    pauseIfClosed(stream) {
      if (gate.isOpen) return false;
      stream.pause();
      // one that paused again goes behind those waiting longer
      paused.delete(stream);
      paused.add(stream);
      wait();
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
