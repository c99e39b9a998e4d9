/**
 * The `file` source's side of a threaded segment (docs/threads.md): the whole lines of one file
 * read in one pass, handed over as one piece (the reads they came in, not a copy) with the file's
 * path, the host, the piece's file offset and the read time. The file's position advances past a
 * piece only once its events left the segment, or, with acknowledgements, were delivered.
 */
import type { ThreadedIntake } from '../../../lib/component.js';
import type { FilePiece } from './decoder.js';
import type { FileWatcher } from './watcher.js';

/**
 * Bytes of lines a piece collects before it is handed over. Each piece with a worker holds its
 * events and records there at once: 64 KiB pieces cost the process 3–5 MiB more peak RSS than 32 KiB
 * ones (two workers, remap(parse_regex) -> http), with no throughput difference beyond the spread of runs.
 */
export const PIECE_BYTES = 32 * 1024;

/** The lines of one file not handed over yet. */
export class PieceBuilder {
  private parts: Buffer[] = [];
  private offset = 0;
  /** Bytes collected. */
  bytes = 0;

  /** File offset just past the lines collected. */
  get end(): number {
    return this.offset + this.bytes;
  }

  /** Adds `buf[start, end)`, whole lines at file byte `offset`, right after those collected ({@link end}) if any. */
  add(buf: Buffer, start: number, end: number, offset: number): void {
    if (this.bytes === 0) this.offset = offset;
    this.parts.push(buf.subarray(start, end));
    this.bytes += end - start;
  }

  /**
   * Hands the lines collected to the segment and moves the file's position to `position` once
   * they left it (or were delivered); with none, once every earlier piece did.
   */
  send(intake: ThreadedIntake, w: FileWatcher, host: string, at: number, position: number, acknowledge: boolean): void {
    const settle = w.settlement.expect(position);
    if (this.bytes === 0) return settle('delivered');
    const piece: FilePiece = { path: w.path, host, offset: this.offset, at };
    const parts = this.parts;
    this.parts = [];
    this.bytes = 0;
    // a file's decoder refuses nothing: a refusal would be a defect, held like an undelivered batch
    void intake.message(parts, piece, acknowledge).then((o) => settle('status' in o ? o.status : 'rejected'));
  }
}
