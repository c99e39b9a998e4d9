/**
 * The V8 heap grows with the live data, not up to four times it. After each full collection V8
 * sets the next old-generation limit at the live size times a factor it picks from how fast the
 * collector is compared with the program (1.1 to 4). A pipeline's live heap is small and steady
 * (tens of MiB: compiled code, the edge buffers, the batches in flight), but events that outlive
 * two young collections while a request is out are promoted, so the old generation fills with
 * garbage at tens of MiB per second, and with a factor of 4 the process keeps about 100 MiB of it
 * before each full collection: most of its peak RSS. A fixed factor of 1.5 bounds that garbage by
 * the live size; the extra full collections cost less than the larger heap's (measured in
 * README "Performance"). Importing this module sets it for the whole process, as the CLI does first.
 */
import { setFlagsFromString } from 'node:v8';

/** Growth of the old-generation limit over the live size after a full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;

setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
