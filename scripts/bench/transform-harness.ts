/**
 * Shared harness of the transform benchmarks: pushes batches synchronously through an
 * operator and prints events/s, MiB/s of input and peak RSS.
 */
import { type OperatorFunction, Subject } from 'rxjs';
import type { Event, EventBatch } from '../../lib/event.js';

export interface BenchResult {
  readonly name: string;
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSec: number;
  readonly mibPerSec: number;
  readonly outEvents: number;
  readonly peakRssMiB: number;
}

/**
 * Runs the batches `next` produces (until undefined) through `op`, like a source would: each batch
 * is built just before it is pushed. `bytes` returns the input size the MiB/s figure is based on.
 */
export function runBench(name: string, next: () => EventBatch | undefined, bytes: () => number, op: OperatorFunction<EventBatch, EventBatch>): BenchResult {
  const input = new Subject<EventBatch>();
  let outEvents = 0;
  input.pipe(op).subscribe((b) => {
    outEvents += b.length;
  });
  let events = 0;
  const t0 = process.hrtime.bigint();
  for (let b = next(); b !== undefined; b = next()) {
    events += b.length;
    input.next(b);
  }
  input.complete();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return {
    name,
    events,
    seconds,
    eventsPerSec: events / seconds,
    mibPerSec: bytes() / 1024 / 1024 / seconds,
    outEvents,
    // maxRSS is in KiB
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

/** Prints one result line. */
export function report(r: BenchResult): void {
  console.log(
    `${r.name}: ${r.events} events in ${r.seconds.toFixed(3)} s = ${Math.round(r.eventsPerSec).toLocaleString('en-US')} events/s, ` +
      `${r.mibPerSec.toFixed(1)} MiB/s, out ${r.outEvents} events, peak RSS ${r.peakRssMiB.toFixed(1)} MiB`,
  );
}

/** Event count from argv[2], else the default. */
export function eventCount(dflt: number): number {
  const n = Number(process.argv[2]);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : dflt;
}

/** Events 0..n-1 in batches of `size`, made by `make(i)` with their estimated bytes; `next` ends with undefined. */
export function batchedSource(n: number, size: number, make: (i: number) => { event: Event; bytes: number }) {
  let at = 0;
  let bytes = 0;
  return {
    next(): EventBatch | undefined {
      if (at >= n) return undefined;
      const end = Math.min(n, at + size);
      const b: EventBatch = new Array(end - at);
      for (let i = at; i < end; i++) {
        const made = make(i);
        bytes += made.bytes;
        b[i - at] = made.event;
      }
      at = end;
      return b;
    },
    bytes: () => bytes,
  };
}
