/**
 * Regular expressions that cannot stall the event loop. V8 matches by backtracking, which takes
 * exponential time on some pattern and input pairs (`^(a+)+$` on 40 a's and a `!`) and quadratic
 * time on common ones (`\s+$` on 100,000 spaces and an `x`: 30 s). One such event would freeze
 * every pipeline and the signal handlers with it. What bounds the work:
 *
 * - **Linear fallback**, for the whole process: a match that has backtracked
 *   {@link BACKTRACKS_BEFORE_LINEAR} times is run again by V8's linear-time engine. It applies to
 *   every RegExp that engine can run: no look-around, no backreferences, no `i` or `u` flag,
 *   counted repetition up to 16 (see {@link isLinearCapable}). Importing this module switches it
 *   on for matches run from then on. V8 does not count every step as a backtrack (a greedy loop
 *   giving back characters is not counted), so this alone leaves quadratic matches unbounded.
 * - **{@link GuardedRegExp}** `long` mode: inputs longer than {@link LONG_INPUT} go straight to the
 *   linear engine (about 1 to 3 µs per character), shorter ones to the fast backtracking engine
 *   with the fallback. For patterns that backtrack polynomially on long inputs.
 * - **{@link GuardedRegExp}** `bounded` mode, for patterns the linear engine cannot run: each match
 *   stops after {@link BACKTRACK_LIMIT} backtracks and reports no match, and an input longer than
 *   {@link MAX_BOUNDED_INPUT} is refused with a {@link RegexInputTooLong} error.
 */
import { setFlagsFromString } from 'node:v8';

/** Backtracks one match may take before V8 reruns it on the linear-time engine. */
export const BACKTRACKS_BEFORE_LINEAR = 10_000;
/** Inputs longer than this (UTF-16 units) are matched by the linear engine in `long` mode. */
export const LONG_INPUT = 2048;
/** Backtracks one match of a `bounded` GuardedRegExp may take before it reports no match. */
export const BACKTRACK_LIMIT = 10_000;
/** Longest input a `bounded` GuardedRegExp searches; longer ones throw {@link RegexInputTooLong}. */
export const MAX_BOUNDED_INPUT = 8192;

setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
setFlagsFromString(`--regexp-backtracks-before-fallback=${BACKTRACKS_BEFORE_LINEAR}`);
// makes the `l` flag (run on the linear engine only) valid: how isLinearCapable asks V8, and how
// `long` mode runs long inputs
setFlagsFromString('--enable-experimental-regexp-engine');

/** Whether V8's linear-time engine can run this pattern, so that the linear fallback covers it. */
export function isLinearCapable(source: string, flags: string): boolean {
  try {
    new RegExp(source, flags + 'l');
    return true;
  } catch {
    return false;
  }
}

type LimitedConstructor = (source: string, flags: string, limit: number) => RegExp;

/**
 * V8's constructor of a RegExp with a backtrack limit is an internal runtime function: its name
 * parses only while natives syntax is allowed. The flag stays on for the process: V8 compiles a
 * function body lazily (and may flush and recompile it later), so turning the flag off again
 * would make a later compile of this body fail. Allowing the syntax changes nothing else at run time.
 * Undefined when this V8 lacks it (`bounded` mode then keeps only the input length cap).
 */
const limitedConstructor: LimitedConstructor | undefined = (() => {
  setFlagsFromString('--allow-natives-syntax');
  try {
    const make = new Function('source', 'flags', 'limit', 'return %NewRegExpWithBacktrackLimit(source, flags, limit);') as LimitedConstructor;
    make('a', '', 1); // compiled now, while it is sure to parse
    return make;
  } catch {
    return undefined;
  }
})();

/** Whether `bounded` mode really limits backtracking (false only on a V8 without the runtime function). */
export const hasBacktrackLimit = limitedConstructor !== undefined;

/** A `bounded` pattern was asked to search an input longer than {@link MAX_BOUNDED_INPUT}. */
export class RegexInputTooLong extends Error {
  constructor(readonly length: number) {
    super(`input of ${length} characters is longer than ${MAX_BOUNDED_INPUT}, the most a pattern the linear regex engine cannot run may search`);
  }
}

/**
 * How a {@link GuardedRegExp} runs: `fast` always on the backtracking engine (for patterns that
 * cannot backtrack more than a constant per character, and short inputs), `long` on the linear
 * engine for inputs over {@link LONG_INPUT}, `bounded` with a backtrack limit and an input cap.
 */
export type RegexMode = 'fast' | 'long' | 'bounded';

/**
 * A RegExp whose every match runs in bounded time, by its {@link RegexMode}. RegExp methods
 * (`test`, `replace`, `split`, `matchAll`, String methods taking it) all go through its `exec`,
 * and the copies they make keep the mode. Throws a SyntaxError for an invalid pattern or flags.
 */
export class GuardedRegExp extends RegExp {
  static override get [Symbol.species](): RegExpConstructor {
    return speciesCopy;
  }
  /** The JS source V8 runs (`source` may be overridden by subclasses). */
  declare readonly js: string;
  declare readonly mode: RegexMode;
  /** `long` mode: the same pattern on the linear engine. */
  declare readonly linearTwin: RegExp | undefined;

  constructor(source: string, flags: string, mode: RegexMode) {
    if (mode === 'bounded' && limitedConstructor !== undefined) {
      // the RegExp constructor validates first: V8's runtime function aborts the process on bad flags
      const checked = new RegExp(source, flags);
      const re = limitedConstructor(source, checked.flags, BACKTRACK_LIMIT);
      Object.setPrototypeOf(re, new.target.prototype);
      Object.defineProperties(re, {
        js: { value: source },
        mode: { value: mode },
        linearTwin: { value: undefined },
      });
      return re as GuardedRegExp;
    }
    super(source, flags);
    Object.defineProperties(this, {
      js: { value: source },
      mode: { value: mode },
      linearTwin: { value: mode === 'long' ? new RegExp(source, this.flags + 'l') : undefined },
    });
  }

  override exec(s: string): RegExpExecArray | null {
    if (this.mode === 'fast' || s.length <= LONG_INPUT) return super.exec(s);
    if (this.mode === 'bounded') {
      if (s.length > MAX_BOUNDED_INPUT) throw new RegexInputTooLong(s.length);
      return super.exec(s);
    }
    const twin = this.linearTwin!;
    twin.lastIndex = this.lastIndex;
    const m = twin.exec(s);
    this.lastIndex = twin.lastIndex;
    return m;
  }
}

/** The copy RegExp methods make (`matchAll`, `split`): same source, other flags, same mode. */
const speciesCopy = function (rx: RegExp | string, flags?: string): RegExp {
  if (rx instanceof GuardedRegExp) return new GuardedRegExp(rx.js, flags ?? rx.flags, rx.mode);
  return new RegExp(rx, flags);
} as unknown as RegExpConstructor;

/**
 * A guarded RegExp for a pattern built at run time without further analysis (search-query
 * wildcards): `long` mode when the linear engine can run it, otherwise `bounded`.
 */
export function guardedRegExp(source: string, flags = ''): GuardedRegExp {
  return new GuardedRegExp(source, flags, isLinearCapable(source, flags) ? 'long' : 'bounded');
}
