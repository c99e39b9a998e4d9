/** Helpers for writing option checks that report at the right option path. */
import * as v from 'valibot';

/** One issue path item naming option `key` of an object, for `rawCheck` issues (`path: [pathItem(c, 'uri')]`). */
export function pathItem(input: object, key: string) {
  return { type: 'object' as const, origin: 'value' as const, input: input as Record<string, unknown>, key, value: (input as Record<string, unknown>)[key] };
}

/**
 * Adds the thrown message as an issue when `check` throws (parsers that validate by compiling).
 * Templates and field paths have their own builders, which also keep their messages uniform.
 */
export const throwsNot = (check: (value: string) => unknown) =>
  v.rawCheck<string>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      check(dataset.value);
    } catch (err) {
      addIssue({ message: (err as Error).message });
    }
  });
