/**
 * Metric tag values as Vector's native codecs carry them: a tag holds an ordered set of values,
 * each a string or bare (null). A set of one is a plain tag; adding a value the set already
 * holds moves it to the end (the "single" value of a tag is its last non-bare value).
 */
import type { TagValue } from '../event.js';

/** The tag a list of decoded values makes: duplicates folded (the later wins the position), one value unwrapped. */
export function tagFromValues(values: readonly (string | null)[]): TagValue {
  if (values.length === 1) return values[0]!;
  let out: (string | null)[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (out) {
      const at = out.indexOf(x);
      if (at >= 0) out.splice(at, 1);
      out.push(x);
    } else if (values.indexOf(x) !== i) {
      // first duplicate: copy what came before, then continue with the move-to-end rule
      out = values.slice(0, i);
      const at = out.indexOf(x);
      out.splice(at, 1);
      out.push(x);
    }
  }
  const set = out ?? values.slice();
  return set.length === 1 ? set[0]! : set;
}

/** The tag's values as a list (a plain tag is a list of one). */
export function tagValues(t: TagValue): readonly (string | null)[] {
  return Array.isArray(t) ? t : [t];
}

/** The last non-bare value of a tag, what single-valued readers see; undefined when every value is bare. */
export function singleTagValue(t: TagValue): string | undefined {
  if (!Array.isArray(t)) return t ?? undefined;
  for (let i = t.length - 1; i >= 0; i--) if (t[i] !== null) return t[i]!;
  return undefined;
}
