/**
 * What the `file` sink holds per path between batches, so that many small batches (or a batch
 * spread over many paths) become few writes: each event's encoded piece (framed when written) and
 * the event itself (for its delivery once written), and the total size, which bounds memory.
 */
import type { Event } from '../../../lib/event.js';

/** One path's held events and their pieces, in arrival order. */
export interface HeldData {
  readonly pieces: (string | Buffer)[];
  readonly events: Event[];
  /** Size of the pieces (string length for texts: about their bytes). */
  size: number;
}

/** Held data by path, in the order paths first got some. */
export class HeldWrites {
  private readonly byPath = new Map<string, HeldData>();
  /** Size held over every path. */
  size = 0;

  /** Paths with data held. */
  get paths(): number {
    return this.byPath.size;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  /** Adds one event's piece; returns the path's held data. */
  add(path: string, piece: string | Buffer, event: Event): HeldData {
    let h = this.byPath.get(path);
    if (!h) this.byPath.set(path, (h = { pieces: [], events: [], size: 0 }));
    h.pieces.push(piece);
    h.events.push(event);
    h.size += piece.length;
    this.size += piece.length;
    return h;
  }

  /** Takes the held data of `path`. */
  take(path: string): HeldData | undefined {
    const h = this.byPath.get(path);
    if (!h) return undefined;
    this.byPath.delete(path);
    this.size -= h.size;
    return h;
  }

  /** Takes everything held, path by path. */
  takeAll(): [string, HeldData][] {
    const all = [...this.byPath];
    this.byPath.clear();
    this.size = 0;
    return all;
  }
}
