/**
 * The V8 heap grows with the live data, not up to four times it, and the young generation stops at
 * three quarters of V8's default maximum.
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
 * factor is read at each resize: this module keeps it at 1 until the first collection is reported
 * (modules load meanwhile), then picks the factor that lands on {@link SEMI_SPACE_MIB} and sets it
 * back to 1 there. The price is CPU: young collections come more often, so more events that wait
 * for their request are promoted and the old generation is collected more often. Since events are
 * encoded straight to bytes and let go once encoded, 8 MiB keeps the http and regex paths at the
 * throughput of 12 or 16 MiB and takes 10 to 15 MiB off their peak (docs/memory.md has the figures).
 * Worker threads do not follow the factor; their young generation is bounded by the pool's
 * `resourceLimits` (lib/threads/pool.ts). The factor is set when V8 reports a collection, which
 * reaches JavaScript on the next turn of the event loop: a turn that allocates more than a
 * semi-space on its own, right after the growth, could grow it once more (to V8's maximum). A
 * daemon's turns (one socket read, one batch) are far shorter.
 *
 * Importing this module sets both for the whole process, as the CLI does first.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Growth of the old-generation limit over the live size after a full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;
/** Size of one young-generation semi-space the growth stops at, in MiB (V8's default maximum: 16). */
export const SEMI_SPACE_MIB = 8;

setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);

/** Committed bytes of the young generation (both semi-spaces). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

const target = 2 * SEMI_SPACE_MIB * 1048576;
setFlagsFromString('--semi-space-growth-factor=1');
// the young generation grows by whole factors of its size: the one that lands on the target, then none
const watch = new PerformanceObserver(() => {
  const factor = Math.max(1, Math.floor(target / Math.max(1, youngGenerationBytes())));
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  if (factor === 1) watch.disconnect();
});
watch.observe({ entryTypes: ['gc'] });
