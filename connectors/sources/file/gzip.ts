/**
 * Gzip-compressed files (found by their magic bytes) are read as their content, once: positions
 * and offsets count decompressed bytes, and such a file is not followed as it grows (as Vector's
 * `file` source documentation page says). Decompression runs on zlib's thread pool; at most
 * {@link GZIP_QUEUE_BYTES} of decompressed content wait to be read, the stream pauses beyond.
 */
import { createReadStream } from 'node:fs';
import { type Gunzip, createGunzip } from 'node:zlib';
import type { OrderedSettlement } from '../../shared/source/index.js';
import { FileWatcher } from './watcher.js';

/** Decompressed bytes queued ahead of the reader before decompression pauses. */
export const GZIP_QUEUE_BYTES = 1 << 20;

/** Whether the first bytes of a file are gzip's magic number. */
export const isGzip = (head: Buffer): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

/** A watched gzip file: the content comes from a decompression stream instead of the descriptor. */
export class GzipWatcher extends FileWatcher {
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  /** The decompression error that ended the stream, thrown by the next read once the queue is empty. */
  private failure: Error | undefined;
  /** Decompressed bytes still to skip before the resume position. */
  private skip: number;
  private readonly stream: Gunzip;

  constructor(path: string, fingerprint: string, fd: number, dev: number, ino: number, position: number, settlement: OrderedSettlement<number>, delimiter: Buffer, maxLineBytes: number) {
    super(path, fingerprint, fd, dev, ino, position, settlement, delimiter, maxLineBytes);
    this.skip = position;
    this.stream = createGunzip();
    createReadStream('', { fd, start: 0, autoClose: false }).pipe(this.stream);
    this.stream.on('data', (chunk: Buffer) => this.take(chunk));
    this.stream.on('end', () => (this.ended = true));
    this.stream.on('error', (err) => {
      this.failure = err;
      this.ended = true;
    });
  }

  protected override readChunk(maxBytes: number): Buffer | 'eof' | 'truncated' {
    const head = this.queue[0];
    if (head === undefined) {
      if (this.failure !== undefined) throw this.failure;
      // not decompressed yet, or all read: nothing now either way
      return 'eof';
    }
    const out = head.length <= maxBytes ? head : head.subarray(0, maxBytes);
    if (out === head) this.queue.shift();
    else this.queue[0] = head.subarray(maxBytes);
    this.queued -= out.length;
    if (this.queued < GZIP_QUEUE_BYTES / 2 && this.stream.isPaused()) this.stream.resume();
    return out;
  }

  /** Whether the whole content was decompressed and read. */
  override get atEnd(): boolean {
    return this.ended && this.queue.length === 0;
  }

  override close(): void {
    this.stream.destroy();
    super.close();
  }

  private take(chunk: Buffer): void {
    if (this.skip > 0) {
      // resuming from a checkpoint: the content before it was read in an earlier run
      const n = Math.min(this.skip, chunk.length);
      this.skip -= n;
      chunk = chunk.subarray(n);
      if (chunk.length === 0) return;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued >= GZIP_QUEUE_BYTES) this.stream.pause();
  }
}
