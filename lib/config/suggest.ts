/**
 * "Did you mean": the known name a misspelt one most likely stands for, when exactly one is
 * clearly closest. Used for option names, component types and global options.
 */

/** Edit distance counting an adjacent transposition as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  // three rolling rows: the transposition looks two rows back
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
    }
    [before, prev, row] = [prev, row, before];
  }
  return prev[b.length]!;
}

/** Case and `-`/`_` differences are not spelling mistakes: `Max-Events` is `max_events`. */
const normalize = (s: string) => s.toLowerCase().replace(/-/g, '_');

/**
 * The candidate `name` was most likely meant to be, or undefined when none is close or two are
 * equally close. Close: at most 2 edits (1 for names under 6 characters), else the only
 * candidate that starts with `name` (3 characters or more).
 */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const typed = normalize(name);
  const limit = typed.length < 6 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  let isTied = false;
  const prefixed: string[] = [];
  for (const c of candidates) {
    if (c === name) continue;
    const known = normalize(c);
    const d = editDistance(typed, known);
    if (d < bestDistance) [best, bestDistance, isTied] = [c, d, false];
    else if (d === bestDistance) isTied = true;
    if (typed.length >= 3 && known.startsWith(typed)) prefixed.push(c);
  }
  if (best !== undefined && !isTied) return best;
  if (best === undefined && prefixed.length === 1) return prefixed[0];
  return undefined;
}
