/**
 * Messages between the main thread and the pipeline workers (docs/threads.md). Only plain data
 * and bytes cross: component options as validated, pieces of input bytes, encoded records.
 */
import type { Level } from '../log.js';

/** One component of a segment as the worker builds it. */
export interface SegmentMember {
  readonly id: string;
  readonly type: string;
  /** The validated options (plain data). */
  readonly options: unknown;
}

/** Sets up one segment in a worker; sent again to a replacement worker. */
export interface SegmentSetup {
  readonly kind: 'setup';
  readonly segment: number;
  readonly source: SegmentMember;
  readonly transforms: readonly SegmentMember[];
  readonly sink: SegmentMember;
  /** The configuration's global options. */
  readonly globals: unknown;
  readonly logLevel: Level;
}

/** Forgets a segment (its source stopped). */
export interface SegmentTeardown {
  readonly kind: 'teardown';
  readonly segment: number;
}

/** Whole lines of one connection (or its unterminated end when `final`). */
export interface Piece {
  readonly kind: 'piece';
  readonly segment: number;
  readonly seq: number;
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly bytes: Uint8Array;
  /** The connection ended after these bytes: the rest without a newline is a line too. */
  readonly final: boolean;
  /**
   * What the source's decoder needs of the message the piece is (a request's path, fields, receive
   * time), as the source's worker decoder reads it; undefined for a stream's pieces.
   */
  readonly meta?: unknown;
}

/**
 * An answer's buffer given back (transferred) once all its records were copied into request
 * bodies: the worker writes its next answers into it instead of new memory.
 */
export interface Recycle {
  readonly kind: 'recycle';
  readonly buffer: ArrayBuffer;
}

export type ToWorker = SegmentSetup | SegmentTeardown | Piece | Recycle;

/** Counter increments of the segment's components: `[name, tags, delta]`. */
export type CounterDelta = readonly [string, Readonly<Record<string, string>>, number];

/** A piece's records, encoded for the sink, back to back in `bytes`. */
export interface PieceResult {
  readonly kind: 'result';
  readonly segment: number;
  readonly seq: number;
  /** The records' UTF-8 bytes back to back, at the start of a buffer of the worker's (transferred). */
  readonly bytes: Uint8Array;
  /** End offset of each record in `bytes`. */
  readonly ends: Uint32Array;
  /** Bytes between two records (the sink body's separator): record i + 1 starts at `ends[i] + gap`. */
  readonly gap: number;
  /** Estimated size (eventSize) of each record's event. */
  readonly eventBytes: Uint32Array;
  /** Each record's partition key, when the sink groups its batches by one ('' where it failed). */
  readonly keys?: readonly string[];
  /** Records whose partition key did not render: `[record, template, reason]`. */
  readonly keyFailures?: readonly (readonly [number, string, string])[];
  /** What else each record takes from its event, when the sink's worker encoder reads more (plain data). */
  readonly recordFields?: readonly unknown[];
  /** Events the source decoded from the piece, and their estimated bytes. */
  readonly decoded: number;
  readonly decodedBytes: number;
  readonly counters: readonly CounterDelta[];
  /** Set when the piece could not be processed at all (its events are lost and counted). */
  readonly error?: string;
  /** Set when the source refuses the whole piece (a frame of a request body that does not decode): no records. */
  readonly refused?: string;
}

/** A log record of a segment's component, after the worker's own level check and rate limit. */
export interface WorkerLog {
  readonly kind: 'log';
  readonly level: Level;
  readonly msg: string;
  readonly fields: Record<string, unknown>;
}

/** A segment's set-up failed in the worker (the main thread built the same components, so this is rare). */
export interface SetupFailed {
  readonly kind: 'setup-failed';
  readonly segment: number;
  readonly error: string;
}

export type FromWorker = PieceResult | WorkerLog | SetupFailed;

/** The answer for a piece that could not be processed: no records, the reason. */
export function failedResult(segment: number, seq: number, error: string): PieceResult {
  // distinct buffers: a worker transfers each of them, and a transfer list must not name one twice
  return { kind: 'result', segment, seq, bytes: new Uint8Array(0), ends: new Uint32Array(0), gap: 0, eventBytes: new Uint32Array(0), decoded: 0, decodedBytes: 0, counters: [], error };
}

/** Thrown by a source's worker decoder that refuses a whole piece (a request body with a frame that does not decode). */
export class PieceRefused extends Error {}
