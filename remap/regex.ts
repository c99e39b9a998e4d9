/**
 * Regular expressions of the remap language use Rust `regex` syntax; they are translated once at
 * compile time into JS RegExp (named groups `(?P<n>`, leading inline flags, `\A`/`\z`).
 *
 * Like Rust's `regex`, a remap regex must not take more than linear time (docs/limits.md). A
 * pattern is rewritten (regex-rewrite.ts) so that V8's linear-time engine can run it, then runs as a
 * {@link GuardedRegExp}: on the backtracking engine when it is anchored and deterministic,
 * otherwise on the linear engine for long inputs. Patterns that engine still cannot run get a
 * backtrack limit. Look-around and backreferences, which Rust's `regex` refuses, are compile errors.
 */
import { GuardedRegExp, type RegexMode, isLinearCapable } from '../lib/bounded-regex.js';
import { hasEmptyRepeat, isBacktrackFree } from './regex-analysis.js';
import { rewriteForLinear } from './regex-rewrite.js';
import { type RegexNode, RegexSyntaxUnknown, findNode, parseRegex } from './regex-syntax.js';

/** A compiled remap regex; `source` reports the program's pattern text, not the JS translation. */
export class VrlRegex extends GuardedRegExp {
  declare readonly pattern: string;
  constructor(pattern: string, js: string, flags: string, mode: RegexMode) {
    super(js, flags, mode);
    Object.defineProperty(this, 'pattern', { value: pattern });
  }
  override get source(): string {
    return this.pattern;
  }
  override toString(): string {
    return this.pattern;
  }
}

/** JS text, flags and mode for a translated pattern. */
interface Engine {
  readonly source: string;
  readonly flags: string;
  readonly mode: RegexMode;
}

function parsed(text: string): RegexNode | undefined {
  try {
    return parseRegex(text);
  } catch (e) {
    if (e instanceof RegexSyntaxUnknown) return undefined;
    throw e;
  }
}

/** The rewritten pattern when V8's linear engine can run it with the same results, else undefined. */
function linearForm(text: string, flags: string, tree: RegexNode): { source: string; flags: string; tree: RegexNode } | undefined {
  if (hasEmptyRepeat(tree)) return undefined;
  const fold = flags.includes('i');
  try {
    const source = rewriteForLinear(tree, fold);
    const linearFlags = fold ? flags.replace('i', '') : flags;
    if (!isLinearCapable(source, linearFlags)) return undefined;
    return { source, flags: linearFlags, tree: source === text ? tree : parseRegex(source) };
  } catch (e) {
    if (e instanceof RegexSyntaxUnknown) return undefined;
    throw e;
  }
}

function engineFor(text: string, flags: string, tree: RegexNode | undefined): Engine {
  const linear = tree === undefined ? undefined : linearForm(text, flags, tree);
  if (linear === undefined) return { source: text, flags, mode: 'bounded' };
  return { source: linear.source, flags: linear.flags, mode: isBacktrackFree(linear.tree, linear.flags) ? 'fast' : 'long' };
}

function compileError(e: unknown): Error {
  const msg = (e as Error).message;
  if (/Unterminated character class/.test(msg)) return new Error('unclosed character class: [', { cause: e });
  if (/Unterminated group/.test(msg)) return new Error('unclosed group', { cause: e });
  return new Error(msg.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, ''), { cause: e });
}

/**
 * Translates and compiles a Rust-syntax pattern; throws Error with a VRL-like reason, also for
 * look-around and backreferences (Rust's `regex` has neither).
 */
export function compileRegex(pattern: string, extraFlags = ''): VrlRegex {
  let text = pattern;
  let flags = extraFlags;
  for (;;) {
    const m = /^\(\?([imsxU]+)\)/.exec(text);
    if (!m) break;
    for (const f of m[1]!) if (f !== 'x' && f !== 'U' && !flags.includes(f)) flags += f;
    text = text.slice(m[0].length);
  }
  text = text.replace(/\(\?P</g, '(?<').replace(/\\A/g, '^').replace(/\\z/g, '$');
  try {
    new RegExp(text, flags);
  } catch (e) {
    throw compileError(e);
  }
  const tree = parsed(text);
  if (tree !== undefined) {
    if (findNode(tree, 'look')) throw new Error('look-around, including look-ahead and look-behind, is not supported');
    if (findNode(tree, 'backref')) throw new Error('backreferences are not supported');
  }
  const engine = engineFor(text, flags, tree);
  return new VrlRegex(pattern, engine.source, engine.flags, engine.mode);
}

/**
 * A guarded RegExp for a pattern the standard library writes or builds (parsers, grok): JS
 * syntax, look-around allowed (it makes the pattern `bounded`). Throws a SyntaxError when invalid.
 */
export function builtRegex(text: string, flags = ''): GuardedRegExp {
  new RegExp(text, flags);
  const engine = engineFor(text, flags, parsed(text));
  return new GuardedRegExp(engine.source, engine.flags, engine.mode);
}

/** A copy with other flags that keeps the original's mode. */
function withFlags(re: RegExp, flags: string): RegExp {
  if (re instanceof VrlRegex) return new VrlRegex(re.pattern, re.js, flags, re.mode);
  if (re instanceof GuardedRegExp) return new GuardedRegExp(re.js, flags, re.mode);
  return new RegExp(re, flags);
}

const globalCopies = new WeakMap<RegExp, RegExp>();

/**
 * The global-flagged form for replace-all and exec loops, made once per regex. Shared: a caller
 * that reads `lastIndex` (exec, matchAll) sets it first.
 */
export function globalOf(re: RegExp): RegExp {
  if (re.global) return re;
  let g = globalCopies.get(re);
  if (g === undefined) {
    g = withFlags(re, re.flags + 'g');
    globalCopies.set(re, g);
  }
  return g;
}

/** The form whose `exec` ignores and keeps `lastIndex` (the regex itself unless global or sticky). */
export function stateless(re: RegExp): RegExp {
  return re.global || re.sticky ? withFlags(re, re.flags.replace(/[gy]/g, '')) : re;
}

/** Where the search after an empty match at `i` resumes: the next character (code point with `u`). */
export function nextIndex(s: string, i: number, unicode: boolean): number {
  if (!unicode || i + 1 >= s.length) return i + 1;
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? i + 2 : i + 1;
}

/**
 * Every match in `s`, from its start, as `matchAll` finds them. It runs the shared global form
 * and keeps its position itself, where `matchAll` would copy the regex on every call.
 */
export function* allMatches(re: RegExp, s: string): Generator<RegExpExecArray> {
  const g = globalOf(re);
  let at = 0;
  for (;;) {
    g.lastIndex = at;
    const m = g.exec(s);
    if (m === null) return;
    at = m[0] === '' ? nextIndex(s, g.lastIndex, g.unicode) : g.lastIndex;
    yield m;
  }
}

const groupCache = new WeakMap<RegExp, { readonly names: readonly string[]; readonly count: number }>();

/** Named groups of a pattern, in order, and the number of groups (the whole match included). */
export function groupInfo(re: RegExp): { readonly names: readonly string[]; readonly count: number } {
  let info = groupCache.get(re);
  if (info === undefined) {
    // an empty alternative matches '' at once, with every group unset
    const m = new RegExp(jsSource(re) + '|').exec('')!;
    info = { names: m.groups ? Object.keys(m.groups) : [], count: m.length };
    groupCache.set(re, info);
  }
  return info;
}

/** JS source text of a (possibly translated) regex. */
export function jsSource(re: RegExp): string {
  return re instanceof GuardedRegExp ? re.js : re.source;
}
