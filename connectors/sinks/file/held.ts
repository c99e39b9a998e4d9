/**
 * What the `file` sink holds per path between batches, so that many small batches (or a batch
 * spread over many paths) become few writes: each event's encoded piece (framed when written) and
 * the event itself (for its delivery once written), and the total size, which bounds memory.
 */
import type { Event } from '../../../lib/event.js';

/**
 * One path's held events and their pieces, in arrival order. Without pieces, every event is a
 * pipeline worker's record (docs/threads.md), framed from its bytes when written.
 */
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
  /** Events held as records (without pieces), over every path. */
  records = 0;

  /** Paths with data held. */
  get paths(): number {
    return this.byPath.size;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  /** Adds one event's piece, or a record of `size` bytes (`piece` undefined); returns the path's held data. */
  add(path: string, piece: string | Buffer | undefined, event: Event, size = piece?.length ?? 0): HeldData {
    let h = this.byPath.get(path);
    if (!h) this.byPath.set(path, (h = { pieces: [], events: [], size: 0 }));
    if (piece !== undefined) h.pieces.push(piece);
    else this.records++;
    h.events.push(event);
    h.size += size;
    this.size += size;
    return h;
  }

  /** Turns the records `path` holds (events without pieces) into pieces, in order, with `pieceOf`. */
  toPieces(path: string, pieceOf: (e: Event) => string | Buffer): void {
    const h = this.byPath.get(path);
    if (!h || h.pieces.length > 0) return;
    for (const e of h.events) h.pieces.push(pieceOf(e));
    this.records -= h.events.length;
  }

  /** The held data of `path`, if any. */
  get(path: string): HeldData | undefined {
    return this.byPath.get(path);
  }

  /** Takes the held data of `path`. */
  take(path: string): HeldData | undefined {
    const h = this.byPath.get(path);
    if (!h) return undefined;
    this.byPath.delete(path);
    this.size -= h.size;
    if (h.pieces.length === 0) this.records -= h.events.length;
    return h;
  }

  /** Takes everything held, path by path. */
  takeAll(): [string, HeldData][] {
    const all = [...this.byPath];
    this.byPath.clear();
    this.size = 0;
    this.records = 0;
    return all;
  }
}
