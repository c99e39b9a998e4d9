/** Text helpers of diagnostics: "did you mean" guesses, byte offsets, coercion hints. */
import * as K from '../kind.js';

/** Levenshtein distance for "did you mean" hints. */
function distance(a: string, b: string): number {
  const d: number[] = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length]!;
}

/** The candidate closest to `name` (the first of equals); undefined when there are none. */
export function suggest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const dd = distance(name, c);
    if (dd < bestD) {
      bestD = dd;
      best = c;
    }
  }
  return best;
}

/** Byte offsets, as VRL reports spans in runtime errors. */
export function byteOffset(src: string, i: number): number {
  return Buffer.byteLength(src.slice(0, i), 'utf8');
}

/** Per accepted kind: its name, the coercing function (none for containers) and that function's fallback literal. */
export const COERCERS: Record<number, [string, string, string]> = {
  [K.BYTES]: ['string', 'to_string', '"default"'],
  [K.INTEGER]: ['int', 'to_int', '0'],
  [K.FLOAT]: ['float', 'to_float', '0'],
  [K.BOOLEAN]: ['bool', 'to_bool', 'false'],
  [K.OBJECT]: ['object', '', ''],
  [K.ARRAY]: ['array', '', ''],
  [K.TIMESTAMP]: ['timestamp', 'to_unix_timestamp', 'now()'],
};
