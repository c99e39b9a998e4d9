/**
 * The structure of a translated remap regex (JavaScript syntax, no `u` flag) and the rewrites that
 * let V8's linear-time engine run it without changing what it matches: case-insensitivity spelled
 * out as character classes, and counted repetition past that engine's limit (16, multiplied
 * through nesting) spelled out as copies. Anything this parser does not follow throws
 * {@link RegexSyntaxUnknown}; the caller then keeps the pattern as written.
 */

/** A parsed pattern. */
export type RegexNode =
  | { readonly t: 'alt'; readonly alts: readonly RegexNode[] }
  | { readonly t: 'seq'; readonly items: readonly RegexNode[] }
  /** `(`, `(?:` or `(?<name>`. */
  | { readonly t: 'group'; readonly open: string; readonly capturing: boolean; readonly body: RegexNode }
  /** `(?=`, `(?!`, `(?<=` or `(?<!`. */
  | { readonly t: 'look'; readonly open: string; readonly body: RegexNode }
  /** `max` is Infinity for `*`, `+` and `{n,}`. */
  | { readonly t: 'quant'; readonly body: RegexNode; readonly min: number; readonly max: number; readonly lazy: boolean }
  /** One literal UTF-16 unit, as written (`a`, `\.`, `\x41`). */
  | { readonly t: 'char'; readonly code: number; readonly raw: string }
  /** `escapes`: the class escapes inside (`d`, `W`, …), besides the ranges of single characters. */
  | { readonly t: 'class'; readonly raw: string; readonly negated: boolean; readonly ranges: readonly (readonly [number, number])[]; readonly escapes: string }
  /** `.`, `^`, `$`, `\b`, `\B`, `\d` and the other class escapes: unchanged by the rewrites. */
  | { readonly t: 'other'; readonly raw: string; readonly quantifiable: boolean }
  | { readonly t: 'backref'; readonly raw: string };

/** The pattern uses syntax this parser leaves alone (or that JavaScript rejects). */
export class RegexSyntaxUnknown extends Error {}

/** Most repetitions the linear engine takes, as a product over nested quantifiers (V8's limit). */
const MAX_REPLICATION = 16;
/** Longest rewritten source; a pattern growing past it is kept as written. */
const MAX_REWRITE_LENGTH = 100_000;
/** Largest repetition count parsed; larger ones are left to V8. */
const MAX_COUNT = 100_000;

const unknown = (what: string): never => {
  throw new RegexSyntaxUnknown(what);
};

const CLASS_ESCAPES = 'dDwWsS';
const CONTROL: Record<string, number> = { n: 10, r: 13, t: 9, v: 11, f: 12 };

/** Parses JavaScript regex syntax as V8 reads it without the `u` flag (Annex B). */
export function parseRegex(source: string): RegexNode {
  let i = 0;
  const s = source;

  const hex = (n: number): number | undefined => {
    const h = s.slice(i, i + n);
    return h.length === n && /^[0-9a-fA-F]+$/.test(h) ? parseInt(h, 16) : undefined;
  };

  /** After a backslash outside a class: `i` is on the escaped character. */
  const escape = (): RegexNode => {
    const start = i - 1;
    const c = s[i];
    if (c === undefined) return unknown('trailing backslash');
    i++;
    if (c === 'b' || c === 'B') return { t: 'other', raw: s.slice(start, i), quantifiable: false };
    if (CLASS_ESCAPES.includes(c)) return { t: 'other', raw: s.slice(start, i), quantifiable: true };
    if (c >= '1' && c <= '9') {
      while (s[i] !== undefined && s[i]! >= '0' && s[i]! <= '9') i++;
      return { t: 'backref', raw: s.slice(start, i) };
    }
    if (c === 'k' && s[i] === '<') {
      const end = s.indexOf('>', i);
      i = end < 0 ? s.length : end + 1;
      return { t: 'backref', raw: s.slice(start, i) };
    }
    return { t: 'char', code: escapedCode(c, start), raw: s.slice(start, i) };
  };

  /** The code of an escaped character (after `\` and `c`; `i` past `c`), in or out of a class. */
  const escapedCode = (c: string, start: number): number => {
    if (c === '0') {
      if (s[i] !== undefined && s[i]! >= '0' && s[i]! <= '9') return unknown('octal escape');
      return 0;
    }
    if (CONTROL[c] !== undefined) return CONTROL[c]!;
    if (c === 'x') {
      const v = hex(2);
      if (v === undefined) return 'x'.charCodeAt(0);
      i += 2;
      return v;
    }
    if (c === 'u') {
      const v = hex(4);
      if (v === undefined) return s[i] === '{' ? unknown('\\u{') : 'u'.charCodeAt(0);
      i += 4;
      return v;
    }
    if (c === 'c') {
      const l = s[i];
      if (l !== undefined && /[a-zA-Z]/.test(l)) {
        i++;
        return l.charCodeAt(0) % 32;
      }
      return unknown(`\\c at ${start}`);
    }
    if (c === 'p' || c === 'P') return unknown('\\p');
    return c.charCodeAt(0);
  };

  const charClass = (): RegexNode => {
    const start = i;
    i++;
    const negated = s[i] === '^';
    if (negated) i++;
    const ranges: [number, number][] = [];
    let escapes = '';
    // one class atom: a code, or undefined for a class escape (\d \w \s and their negations)
    const atom = (): number | undefined => {
      const c = s[i];
      if (c === undefined) return unknown('unclosed character class');
      i++;
      if (c !== '\\') return c.charCodeAt(0);
      const e = s[i];
      if (e === undefined) return unknown('trailing backslash');
      i++;
      if (CLASS_ESCAPES.includes(e)) {
        escapes += e;
        return undefined;
      }
      if (e === 'b') return 8;
      if (e === '-') return 45;
      if (e >= '1' && e <= '9') return unknown('octal escape in class');
      if (e === 'k') return unknown('\\k in class');
      return escapedCode(e, i - 2);
    };
    while (s[i] !== ']') {
      const lo = atom();
      if (s[i] === '-' && s[i + 1] !== ']' && s[i + 1] !== undefined) {
        const save = i;
        i++;
        const hi = atom();
        if (lo !== undefined && hi !== undefined) {
          if (hi < lo) return unknown('range out of order');
          ranges.push([lo, hi]);
          continue;
        }
        // a class escape on either side: the `-` is a literal character (Annex B)
        i = save;
      }
      if (lo !== undefined) ranges.push([lo, lo]);
    }
    i++;
    return { t: 'class', raw: s.slice(start, i), negated, ranges, escapes };
  };

  const quantifier = (): { min: number; max: number } | undefined => {
    const c = s[i];
    if (c === '*') return (i++, { min: 0, max: Infinity });
    if (c === '+') return (i++, { min: 1, max: Infinity });
    if (c === '?') return (i++, { min: 0, max: 1 });
    if (c !== '{') return undefined;
    const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(i, i + 40));
    if (!m) return undefined; // a literal `{` (Annex B)
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) return unknown('large count');
    if (max < min) return unknown('numbers out of order');
    i += m[0].length;
    return { min, max };
  };

  const group = (): RegexNode => {
    const start = i;
    if (s[i + 1] !== '?') {
      i++;
      return { t: 'group', open: '(', capturing: true, body: closeGroup() };
    }
    const kind = s.slice(i + 2, i + 4);
    if (kind[0] === ':') {
      i += 3;
      return { t: 'group', open: '(?:', capturing: false, body: closeGroup() };
    }
    if (kind[0] === '=' || kind[0] === '!') {
      i += 3;
      return { t: 'look', open: s.slice(start, i), body: closeGroup() };
    }
    if (kind === '<=' || kind === '<!') {
      i += 4;
      return { t: 'look', open: s.slice(start, i), body: closeGroup() };
    }
    if (kind[0] === '<') {
      const m = /^\(\?<([A-Za-z_$][\w$]*)>/.exec(s.slice(i, i + 300));
      if (!m) return unknown('group name');
      i += m[0].length;
      return { t: 'group', open: m[0], capturing: true, body: closeGroup() };
    }
    return unknown('group kind');
  };

  const closeGroup = (): RegexNode => {
    const body = alternation();
    if (s[i] !== ')') return unknown('unclosed group');
    i++;
    return body;
  };

  const term = (): RegexNode => {
    const c = s[i]!;
    let atom: RegexNode;
    switch (c) {
      case '(':
        atom = group();
        break;
      case '[':
        atom = charClass();
        break;
      case '\\':
        i++;
        atom = escape();
        break;
      case '.':
        i++;
        atom = { t: 'other', raw: '.', quantifiable: true };
        break;
      case '^':
      case '$':
        i++;
        atom = { t: 'other', raw: c, quantifiable: false };
        break;
      case '*':
      case '+':
      case '?':
        return unknown('nothing to repeat');
      case ')':
        return unknown('unmatched )');
      default:
        if (c === '{' && /^\{\d+(,\d*)?\}/.test(s.slice(i, i + 40))) return unknown('nothing to repeat');
        i++;
        atom = { t: 'char', code: c.charCodeAt(0), raw: c };
    }
    const q = quantifier();
    if (!q) return atom;
    if ((atom.t === 'other' && !atom.quantifiable) || atom.t === 'look') return unknown('quantified assertion');
    const lazy = s[i] === '?';
    if (lazy) i++;
    return { t: 'quant', body: atom, min: q.min, max: q.max, lazy };
  };

  const sequence = (): RegexNode => {
    const items: RegexNode[] = [];
    while (i < s.length && s[i] !== '|' && s[i] !== ')') items.push(term());
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  };

  const alternation = (): RegexNode => {
    const alts = [sequence()];
    while (s[i] === '|') {
      i++;
      alts.push(sequence());
    }
    return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
  };

  const tree = alternation();
  if (i < s.length) return unknown('unmatched )');
  return tree;
}

/** The first construct of `kind` in the tree, if any. */
export function findNode(node: RegexNode, kind: 'look' | 'backref'): RegexNode | undefined {
  if (node.t === kind) return node;
  switch (node.t) {
    case 'alt':
      for (const a of node.alts) {
        const f = findNode(a, kind);
        if (f) return f;
      }
      return undefined;
    case 'seq':
      for (const a of node.items) {
        const f = findNode(a, kind);
        if (f) return f;
      }
      return undefined;
    case 'group':
    case 'look':
    case 'quant':
      return findNode(node.body, kind);
    default:
      return undefined;
  }
}

const hasCapture = (node: RegexNode): boolean => {
  switch (node.t) {
    case 'group':
      return node.capturing || hasCapture(node.body);
    case 'alt':
      return node.alts.some(hasCapture);
    case 'seq':
      return node.items.some(hasCapture);
    case 'look':
    case 'quant':
      return hasCapture(node.body);
    default:
      return false;
  }
};

/** Whether the node can match the empty string. */
const canBeEmpty = (node: RegexNode): boolean => {
  switch (node.t) {
    case 'alt':
      return node.alts.some(canBeEmpty);
    case 'seq':
      return node.items.every(canBeEmpty);
    case 'group':
      return canBeEmpty(node.body);
    case 'quant':
      return node.min === 0 || canBeEmpty(node.body);
    case 'char':
    case 'class':
      return false;
    case 'other':
      return !node.quantifiable;
    case 'look':
    case 'backref':
      return true;
  }
};

// ---------------------------------------------------------------------------------------------
// case folding

let foldTable: Map<number, readonly number[]> | undefined;

/**
 * Every UTF-16 unit that another one matches under the `i` flag without `u`, keyed by unit: two
 * units match when their canonical forms are equal, the canonical form being the single-unit
 * upper case, except that nothing outside ASCII maps into it (ECMAScript's Canonicalize).
 */
function caseVariants(): Map<number, readonly number[]> {
  if (foldTable) return foldTable;
  const byCanon = new Map<number, number[]>();
  for (let c = 0; c <= 0xffff; c++) {
    const up = String.fromCharCode(c).toUpperCase();
    let canon = c;
    if (up.length === 1) {
      const u = up.charCodeAt(0);
      if (!(c >= 128 && u < 128)) canon = u;
    }
    const list = byCanon.get(canon);
    if (list) list.push(c);
    else byCanon.set(canon, [c]);
  }
  foldTable = new Map();
  for (const list of byCanon.values()) if (list.length > 1) for (const c of list) foldTable.set(c, list);
  return foldTable;
}

const unit = (c: number): string => '\\u' + c.toString(16).padStart(4, '0');

/** Class text of a sorted set of units, coalesced into ranges. */
function classItems(codes: readonly number[]): string {
  let out = '';
  for (let k = 0; k < codes.length; ) {
    let end = k;
    while (end + 1 < codes.length && codes[end + 1] === codes[end]! + 1) end++;
    out += end === k ? unit(codes[k]!) : `${unit(codes[k]!)}-${unit(codes[end]!)}`;
    k = end + 1;
  }
  return out;
}

/** Units to add to a class so that it matches as it did under `i`. */
function foldedAdditions(ranges: readonly (readonly [number, number])[]): number[] {
  const table = caseVariants();
  const inClass = (c: number): boolean => ranges.some(([lo, hi]) => c >= lo && c <= hi);
  const add = new Set<number>();
  for (const [c, variants] of table) {
    if (!inClass(c)) continue;
    for (const v of variants) if (!inClass(v)) add.add(v);
  }
  return [...add].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------
// printing with the rewrites

/** How {@link rewriteForLinear} prints. */
interface Rewrite {
  readonly fold: boolean;
  /** Copies made so far are printed without capture groups (all but the last of a count). */
  readonly dropCaptures: boolean;
}

function print(node: RegexNode, r: number, how: Rewrite, out: string[]): void {
  switch (node.t) {
    case 'alt':
      node.alts.forEach((a, k) => {
        if (k > 0) out.push('|');
        print(a, r, how, out);
      });
      return;
    case 'seq':
      for (const a of node.items) print(a, r, how, out);
      return;
    case 'group':
      out.push(node.capturing && how.dropCaptures ? '(?:' : node.open);
      print(node.body, r, how, out);
      out.push(')');
      return;
    case 'look':
      out.push(node.open);
      print(node.body, r, how, out);
      out.push(')');
      return;
    case 'char': {
      const variants = how.fold ? caseVariants().get(node.code) : undefined;
      out.push(variants ? `[${classItems([...variants].sort((a, b) => a - b))}]` : node.raw);
      return;
    }
    case 'class': {
      const extra = how.fold && node.ranges.length > 0 ? foldedAdditions(node.ranges) : [];
      out.push(extra.length === 0 ? node.raw : node.raw.slice(0, -1) + classItems(extra) + ']');
      return;
    }
    case 'other':
    case 'backref':
      out.push(node.raw);
      return;
    case 'quant':
      printQuantifier(node, r, how, out);
  }
}

const quantText = (min: number, max: number, lazy: boolean): string => {
  const q = min === 0 && max === Infinity ? '*' : min === 1 && max === Infinity ? '+' : min === 0 && max === 1 ? '?' : max === Infinity ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`;
  return lazy ? q + '?' : q;
};

/** An atom as a quantifier's operand: groups, classes and single characters need no wrapping. */
function printOperand(body: RegexNode, r: number, how: Rewrite, out: string[]): void {
  const atomic = body.t === 'group' || body.t === 'class' || body.t === 'char' || body.t === 'other' || body.t === 'backref';
  if (!atomic) out.push('(?:');
  print(body, r, how, out);
  if (!atomic) out.push(')');
}

function printQuantifier(node: RegexNode & { t: 'quant' }, r: number, how: Rewrite, out: string[]): void {
  const { body, min, max, lazy } = node;
  const local = max === Infinity ? min + 1 : max;
  if (local <= MAX_REPLICATION && r * local <= MAX_REPLICATION) {
    printOperand(body, r * local, how, out);
    out.push(quantText(min, max, lazy));
    return;
  }
  const keepsCaptures = !how.dropCaptures && hasCapture(body);
  // left as written (and so not linear-capable): a variable count whose last iteration's
  // captures the copies could not tell apart, or a body matching the empty string, which a
  // quantifier stops repeating while nested optionals would not
  if ((keepsCaptures && min !== max) || (max !== min && canBeEmpty(body))) {
    printOperand(body, r * Math.min(local, MAX_REPLICATION), how, out);
    out.push(quantText(min, max, lazy));
    return;
  }
  // exactly `min` copies (only the last keeps capture groups), then the optional rest
  const plain: Rewrite = { fold: how.fold, dropCaptures: true };
  for (let k = 0; k < min; k++) {
    printOperand(body, r, k === min - 1 ? how : plain, out);
    if (out.length > MAX_REWRITE_LENGTH) return unknown('rewrite too long');
  }
  if (max === Infinity) {
    printOperand(body, r, plain, out);
    out.push(lazy ? '*?' : '*');
    return;
  }
  // `x{0,n}` as n nested optional copies, which try the same counts in the same order
  const optional = lazy ? ')??' : ')?';
  for (let k = min; k < max; k++) {
    out.push('(?:');
    printOperand(body, r, plain, out);
    if (out.length > MAX_REWRITE_LENGTH) return unknown('rewrite too long');
  }
  for (let k = min; k < max; k++) out.push(optional);
}

/**
 * The pattern spelled so that V8's linear engine can take it: with `fold`, case-insensitive
 * matching as explicit classes (the caller drops the `i` flag); counted repetition beyond the
 * engine's limit as copies. Same matches and captures as the input under the original flags;
 * throws {@link RegexSyntaxUnknown} when the result would be too long.
 */
export function rewriteForLinear(node: RegexNode, fold: boolean): string {
  const out: string[] = [];
  print(node, 1, { fold, dropCaptures: false }, out);
  const text = out.join('');
  if (text.length > MAX_REWRITE_LENGTH) return unknown('rewrite too long');
  return text;
}

// ---------------------------------------------------------------------------------------------
// backtracking analysis

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
