/**
 * The V8 heap grows with the live data, not up to four times it, and the young generation stops at
 * the bound of bin/startup/young-generation.ts (half or a quarter of V8's default maximum).
 *
 * Old generation: after each full collection V8 sets the next old-generation limit at the live size
 * times a factor it picks from how fast the collector is compared with the program (1.1 to 4). A
 * pipeline's live heap is small and steady (tens of MiB: compiled code, the edge buffers, the batches
 * in flight), but events that outlive two young collections while a request is out are promoted, so
 * the old generation fills with garbage at tens of MiB per second, and with a factor of 4 the process
 * keeps about 100 MiB of it before each full collection: most of its peak RSS. A fixed factor of 1.5
 * bounds that garbage by the live size; the extra full collections cost less than the larger heap's.
 *
 * Young generation: V8 doubles its two semi-spaces while many objects survive, up to 16 MiB each, and
 * loading the modules of a process is enough to get there. Both semi-spaces are resident, so that is
 * 32 MiB. The maximum can only be set on the command line (`--max-semi-space-size`), but the growth
 * factor is read at each resize: after each collection of the main thread this module sets the
 * factor that lands on the bound of bin/startup/young-generation.ts (8 MiB per semi-space while the main
 * thread runs every pipeline, 4 while pipeline workers do the per-event work), and 1 once there.
 * The price is CPU: young collections come more often, so more events that wait for their request
 * are promoted and the old generation is collected more often (docs/memory.md has the figures).
 * The factor is the process's, not an isolate's, and V8 puts it back to 2 whenever it sets up a new
 * isolate's heap, so each worker thread that starts would let the main thread's young generation
 * grow to V8's maximum again: the factor is set again once a worker is online, and after every
 * collection, not only until the bound is reached (a string parse per collection). A window stays:
 * the reset happens on the worker's thread, before `online` reaches this one, so a collection of the
 * main thread's in between (tens of milliseconds; longer on a busy machine) can double its young
 * generation once. The pool starts its workers with the topology, before data flows, and again only
 * to replace one that died. Workers leave it
 * alone (a preload such as `--import` runs in workers too); their young generation is bounded by
 * the pool's `resourceLimits` (lib/threads/pool.ts). The factor is set when V8 reports a
 * collection, which reaches JavaScript on the next turn of the event loop: a turn that allocates
 * more than a semi-space on its own, right after the growth, could grow it once more (to V8's
 * maximum). A daemon's turns (one socket read, one batch) are far shorter.
 *
 * Importing this module sets both for the whole process, as the CLI does first.
 */
import { subscribe } from 'node:diagnostics_channel';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { type Worker, isMainThread } from 'node:worker_threads';
import { youngGenerationTarget } from './young-generation.js';

/** Growth of the old-generation limit over the live size after a full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;

setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);

/** Committed bytes of the young generation (both semi-spaces). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/** The bound the young generation has reached: from then on it does not grow (until the bound changes). */
let reached = 0;

/** Sets the growth factor that lands the young generation on its bound (whole factors of its size), then 1. */
function holdYoungGeneration(): void {
  const target = youngGenerationTarget();
  const young = youngGenerationBytes();
  if (young >= target) reached = target;
  // after the bound was reached, V8 may still shrink the young generation when the process is idle;
  // growing it back would risk two growths before this reacts, so it stays as V8 left it
  const factor = reached === target ? 1 : Math.max(1, Math.floor(target / Math.max(1, young)));
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
}

if (isMainThread) {
  setFlagsFromString('--semi-space-growth-factor=1');
  new PerformanceObserver(holdYoungGeneration).observe({ entryTypes: ['gc'] });
  // a worker's isolate is set up before it is online
  subscribe('worker_threads', (m) => (m as { worker: Worker }).worker.once('online', holdYoungGeneration));
}
