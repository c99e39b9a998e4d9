/** `buffer.*`: where a sink's events wait, and what happens when that place is full. */
import * as v from 'valibot';
import { pathItem } from './checks.js';
import { posint } from './numbers.js';

/** The smallest disk buffer, in bytes (Vector's minimum). */
export const DISK_BUFFER_MIN_SIZE = 268_435_488;

/** `buffer.*`; `disk_v1` only for the sinks that allow it. A memory buffer holds 500 events unless told otherwise. */
export function bufferSchema(opts: { allowDiskV1?: boolean } = {}) {
  const types = opts.allowDiskV1 ? (['memory', 'disk', 'disk_v1'] as const) : (['memory', 'disk'] as const);
  return v.optional(
    v.pipe(
      v.unknown(),
      // Vector also takes a list (chained buffers, memory overflowing to disk): one element is that buffer
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        if (!Array.isArray(dataset.value)) return dataset.value;
        if (dataset.value.length === 1) return dataset.value[0] as unknown;
        addIssue({ message: 'a list of buffers (chained buffers) is not supported; use one buffer' });
        return NEVER;
      }),
      v.strictObject({
        type: v.optional(v.pipe(v.picklist(types), v.description('"memory" (lost on a crash) or "disk" (kept across restarts).')), 'memory'),
        max_events: v.optional(v.pipe(posint(), v.description('Most events a memory buffer holds; default 500.'))),
        max_size: v.optional(
          v.pipe(
            v.number(),
            v.integer(),
            v.minValue(DISK_BUFFER_MIN_SIZE, `must be at least ${DISK_BUFFER_MIN_SIZE} bytes`),
            v.description('Most bytes a disk buffer holds; required for disk buffers.'),
          ),
        ),
        when_full: v.optional(
          v.pipe(v.picklist(['block', 'drop_newest']), v.description('"block" holds the upstream back until there is room; "drop_newest" drops the arriving events and counts them.')),
          'block',
        ),
      }),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        const b = dataset.value;
        if (b.type !== 'memory' && b.max_size === undefined)
          addIssue({ message: `max_size is required when type is "${b.type}"`, path: [pathItem(b, 'max_size')] });
        if (b.type !== 'memory' && b.max_events !== undefined)
          addIssue({ message: 'max_events applies only to memory buffers', path: [pathItem(b, 'max_events')] });
      }),
      v.transform((b) => ({ ...b, max_events: b.max_events ?? 500 })),
    ),
    {},
  );
}
/** A validated `buffer.*`. */
export type BufferConfig = { type: 'memory' | 'disk' | 'disk_v1'; max_events: number; max_size?: number; when_full: 'block' | 'drop_newest' };
