/**
 * What a parsed regex costs on V8's backtracking engine: whether it is linear there whatever the
 * input (anchored and deterministic), and whether V8's linear engine would match it differently.
 */
import { type RegexNode, canBeEmpty } from './regex-syntax.js';

/** A set of UTF-16 units as sorted, disjoint, non-adjacent ranges; END (past 0xffff) is the end of input. */
type CharSet = readonly (readonly [number, number])[];

const END = 0x10000;
const ALL: CharSet = [[0, 0xffff]];
const NOTHING: CharSet = [];
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
// JavaScript's WhiteSpace and LineTerminator
const SPACE: CharSet = [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];
const LINE_TERMINATORS: CharSet = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];

function union(a: CharSet, b: CharSet): CharSet {
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of all) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(a: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of a) {
    if (lo > 0xffff) break;
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0xffff) out.push([next, 0xffff]);
  return out;
}

function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [alo, ahi] = a[i]!;
    const [blo, bhi] = b[j]!;
    if (ahi < blo) i++;
    else if (bhi < alo) j++;
    else return true;
  }
  return false;
}

const ESCAPE_SETS: Record<string, CharSet> = { d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE) };

/** Characters a node's non-empty matches can start with, and whether it can match the empty string. */
interface Start {
  readonly first: CharSet;
  readonly nullable: boolean;
}

function startOf(node: RegexNode, dotAll: boolean, memo: Map<RegexNode, Start>): Start {
  const known = memo.get(node);
  if (known) return known;
  let r: Start;
  switch (node.t) {
    case 'char':
      r = { first: [[node.code, node.code]], nullable: false };
      break;
    case 'class': {
      let set: CharSet = union(node.ranges, NOTHING);
      for (const e of node.escapes) set = union(set, ESCAPE_SETS[e]!);
      r = { first: node.negated ? complement(set) : set, nullable: false };
      break;
    }
    case 'other': {
      const e = node.raw.length === 2 ? ESCAPE_SETS[node.raw[1]!] : undefined;
      if (node.raw === '.') r = { first: dotAll ? ALL : complement(LINE_TERMINATORS), nullable: false };
      else if (e) r = { first: e, nullable: false };
      else r = { first: NOTHING, nullable: true }; // ^ $ \b \B: zero-width
      break;
    }
    case 'group':
      r = startOf(node.body, dotAll, memo);
      break;
    case 'quant': {
      const b = startOf(node.body, dotAll, memo);
      r = { first: b.first, nullable: node.min === 0 || b.nullable };
      break;
    }
    case 'seq': {
      let first: CharSet = NOTHING;
      let nullable = true;
      for (const x of node.items) {
        const s = startOf(x, dotAll, memo);
        first = union(first, s.first);
        if (!s.nullable) {
          nullable = false;
          break;
        }
      }
      r = { first, nullable };
      break;
    }
    case 'alt': {
      let first: CharSet = NOTHING;
      let nullable = false;
      for (const a of node.alts) {
        const s = startOf(a, dotAll, memo);
        first = union(first, s.first);
        nullable ||= s.nullable;
      }
      r = { first, nullable };
      break;
    }
    default:
      r = { first: ALL, nullable: true };
  }
  memo.set(node, r);
  return r;
}

/**
 * Whether every choice (alternative, another iteration or not) is decided by the next character
 * alone, given what may follow the node (`follow`, END included).
 */
function deterministic(node: RegexNode, follow: CharSet, dotAll: boolean, memo: Map<RegexNode, Start>): boolean {
  switch (node.t) {
    case 'char':
    case 'class':
    case 'other':
      return true;
    case 'look':
    case 'backref':
      return false;
    case 'group':
      return deterministic(node.body, follow, dotAll, memo);
    case 'seq': {
      let f = follow;
      for (let k = node.items.length - 1; k >= 0; k--) {
        const x = node.items[k]!;
        if (!deterministic(x, f, dotAll, memo)) return false;
        const s = startOf(x, dotAll, memo);
        f = s.nullable ? union(s.first, f) : s.first;
      }
      return true;
    }
    case 'alt': {
      let seen: CharSet = NOTHING;
      for (const a of node.alts) {
        const s = startOf(a, dotAll, memo);
        const starts = s.nullable ? union(s.first, follow) : s.first;
        if (intersects(seen, starts)) return false;
        seen = union(seen, starts);
        if (!deterministic(a, follow, dotAll, memo)) return false;
      }
      return true;
    }
    case 'quant': {
      const b = startOf(node.body, dotAll, memo);
      if (node.max > 1 && b.nullable) return false;
      if (node.max > node.min && (b.nullable || intersects(b.first, follow))) return false;
      return deterministic(node.body, node.max > 1 ? union(b.first, follow) : follow, dotAll, memo);
    }
  }
}

/** Whether every match must start at the beginning of the input (`^` first in every alternative, no `m`). */
function anchored(node: RegexNode): boolean {
  switch (node.t) {
    case 'other':
      return node.raw === '^';
    case 'group':
      return anchored(node.body);
    case 'seq':
      return node.items.length > 0 && anchored(node.items[0]!);
    case 'alt':
      return node.alts.every(anchored);
    default:
      return false;
  }
}

/** First characters of the bodies of unbounded quantifiers (`*`, `+`, `{n,}`). */
function loopStarts(node: RegexNode, dotAll: boolean, memo: Map<RegexNode, Start>, out: CharSet[]): CharSet[] {
  switch (node.t) {
    case 'quant':
      if (node.max === Infinity) out.push(startOf(node.body, dotAll, memo).first);
      return loopStarts(node.body, dotAll, memo, out);
    case 'group':
    case 'look':
      return loopStarts(node.body, dotAll, memo, out);
    case 'seq':
      for (const x of node.items) loopStarts(x, dotAll, memo, out);
      return out;
    case 'alt':
      for (const x of node.alts) loopStarts(x, dotAll, memo, out);
      return out;
    default:
      return out;
  }
}

/**
 * Whether the backtracking engine runs this pattern in time linear in the input, so it never
 * needs the linear engine: deterministic (a failed choice costs a constant), and either anchored
 * (one start position) or such that no unbounded repetition consumes a character a match can
 * start with (the searches from different start positions then scan disjoint stretches).
 * Conservative: false when unsure, and always for the `i` flag (rewrite it away first).
 */
export function isBacktrackFree(node: RegexNode, flags: string): boolean {
  if (flags.includes('i')) return false;
  const dotAll = flags.includes('s');
  const memo = new Map<RegexNode, Start>();
  if (!deterministic(node, [[END, END]], dotAll, memo)) return false;
  if ((anchored(node) && !flags.includes('m')) || flags.includes('y')) return true;
  const start = startOf(node, dotAll, memo);
  if (start.nullable) return false;
  return loopStarts(node, dotAll, memo, []).every((loop) => !intersects(loop, start.first));
}

/**
 * Whether a quantifier with optional iterations repeats a body that can match the empty string.
 * JavaScript rejects such an empty iteration; V8's linear engine accepts it and can then report
 * another match or other captures, so such a pattern must not switch engines.
 */
export function hasEmptyRepeat(node: RegexNode): boolean {
  switch (node.t) {
    case 'quant':
      return (node.max > node.min && canBeEmpty(node.body)) || hasEmptyRepeat(node.body);
    case 'group':
    case 'look':
      return hasEmptyRepeat(node.body);
    case 'seq':
      return node.items.some(hasEmptyRepeat);
    case 'alt':
      return node.alts.some(hasEmptyRepeat);
    default:
      return false;
  }
}
