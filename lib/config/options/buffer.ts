/** `buffer.*`: where a sink's events wait, and what happens when that place is full. */
import * as v from 'valibot';
import { pathItem } from './checks.js';
import { posint } from './numbers.js';

/** The smallest disk buffer, in bytes (Vector's minimum). */
export const DISK_BUFFER_MIN_SIZE = 268_435_488;

/** One buffer stage: `type`, `max_events` (memory), `max_size` (disk), `when_full`. A memory stage holds 500 events unless told otherwise. */
function bufferStageSchema(types: readonly ['memory', 'disk'] | readonly ['memory', 'disk', 'disk_v1']) {
  return v.pipe(
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
        v.pipe(
          v.picklist(['block', 'drop_newest', 'overflow']),
          v.description(
            '"block" holds the upstream back until there is room; "drop_newest" drops the arriving events and counts them; "overflow" (a stage of a list that is not the last) passes them to the next stage.',
          ),
        ),
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
    v.transform((b): BufferStageConfig => ({ ...b, max_events: b.max_events ?? 500 })),
  );
}

/** Issue path of option `key` of stage `i` of a buffer list. */
function stageItem(list: BufferStageConfig[], i: number, key: string): [v.IssuePathItem, ...v.IssuePathItem[]] {
  return [{ type: 'array' as const, origin: 'value' as const, input: list, key: i, value: list[i] }, pathItem(list[i]!, key)];
}

/** The rules of a list of stages: every stage but the last overflows, the last does not, one stage per disk format. */
function checkStages(b: BufferStageConfig[], addIssue: (issue: { message: string; path: [v.IssuePathItem, ...v.IssuePathItem[]] }) => void): void {
  const last = b.length - 1;
  const seen = new Set<string>();
  b.forEach((s, i) => {
    if (i < last && s.when_full !== 'overflow')
      addIssue({ message: `must be "overflow" on every stage but the last (stage ${i + 1} follows); got "${s.when_full}"`, path: stageItem(b, i, 'when_full') });
    if (i === last && s.when_full === 'overflow')
      addIssue({ message: 'must be "block" or "drop_newest": the last stage has no next stage to overflow into', path: stageItem(b, i, 'when_full') });
    // a sink has one store per disk format (LevelDB locks it), so one stage of each
    if (s.type !== 'memory' && seen.has(s.type)) addIssue({ message: `a chained buffer holds at most one "${s.type}" stage`, path: stageItem(b, i, 'type') });
    seen.add(s.type);
  });
}

/**
 * `buffer.*`: one buffer, or a list of stages (a chained buffer, as Vector takes it: every stage
 * but the last has `when_full = "overflow"`); `disk_v1` only for the sinks that allow it.
 */
export function bufferSchema(opts: { allowDiskV1?: boolean } = {}) {
  const types = opts.allowDiskV1 ? (['memory', 'disk', 'disk_v1'] as const) : (['memory', 'disk'] as const);
  const stage = bufferStageSchema(types);
  return v.optional(
    v.pipe(
      v.unknown(),
      // checked first: an empty list would also pass as an object with no options
      v.check((b) => !Array.isArray(b) || b.length > 0, 'must list at least one buffer stage'),
      v.union([stage, v.array(stage)]),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        const b = dataset.value;
        if (Array.isArray(b)) return checkStages(b, addIssue);
        if (b.when_full === 'overflow')
          addIssue({ message: 'must be "block" or "drop_newest"; "overflow" needs a next stage: give buffer as a list of stages', path: [pathItem(b, 'when_full')] });
      }),
      // a list becomes its first stage, each stage holding the next as `overflow` (a list of one is that buffer)
      v.transform((b): BufferConfig => (Array.isArray(b) ? b.reduceRight<BufferConfig | undefined>((next, s) => (next ? { ...s, overflow: next } : s), undefined)! : b)),
    ),
    {},
  );
}
/** One buffer stage, validated; `overflow` only on a stage of a list that is not the last. */
export type BufferStageConfig = {
  type: 'memory' | 'disk' | 'disk_v1';
  max_events: number;
  max_size?: number;
  when_full: 'block' | 'drop_newest' | 'overflow';
};
/** A sink's `buffer`: its first stage, and through `overflow` the next one of a chain (memory overflowing to disk). */
export type BufferConfig = BufferStageConfig & { readonly overflow?: BufferConfig };
