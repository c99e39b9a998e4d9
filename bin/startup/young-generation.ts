/**
 * How large the main thread's young generation may grow, in MiB per semi-space. bin/startup/heap-growth.ts
 * holds it there when the CLI loaded it; without that module this is only a number.
 *
 * While pipeline workers decode, transform and encode (docs/threads.md) the main thread reads
 * sockets and sends batches: half the young generation costs it no throughput and takes 8 MiB off
 * the process, which then holds two more V8 heaps. When the main thread does the per-event work
 * itself, 4 MiB makes it collect twice as often and promote more of the events that wait for their
 * request (docs/memory.md has both measured).
 */

/** Semi-space size while the main thread runs every pipeline (V8's default maximum: 16). */
export const SEMI_SPACE_MIB = 8;
/** Semi-space size while pipeline workers do the per-event work: the start, until the CLI says. */
export const THREADED_SEMI_SPACE_MIB = 4;

let semiSpaceMiB = THREADED_SEMI_SPACE_MIB;

/** The bound on both semi-spaces together, in bytes. */
export const youngGenerationTarget = (): number => 2 * semiSpaceMiB * 1048576;

/**
 * Sets the bound for what the topology now runs: {@link THREADED_SEMI_SPACE_MIB} when at least one
 * segment runs in pipeline workers, {@link SEMI_SPACE_MIB} otherwise. V8 shrinks a young generation
 * only in rare memory-reducing collections, so the process starts at the smaller bound and grows
 * when the main thread turns out to run every pipeline.
 */
export function sizeYoungGeneration(threadedSegments: number): void {
  semiSpaceMiB = threadedSegments > 0 ? THREADED_SEMI_SPACE_MIB : SEMI_SPACE_MIB;
}
