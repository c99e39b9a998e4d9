/**
 * Rewrites a parsed remap regex so that V8's linear-time engine can run it without changing what
 * it matches: case-insensitivity spelled out as character classes, and counted repetition past
 * that engine's limit (16, multiplied through nesting) spelled out as copies.
 */
import { type RegexNode, RegexSyntaxUnknown, canBeEmpty, hasCapture } from './regex-syntax.js';

/** Most repetitions the linear engine takes, as a product over nested quantifiers (V8's limit). */
const MAX_REPLICATION = 16;
/** Longest rewritten source; a pattern growing past it is kept as written. */
const MAX_REWRITE_LENGTH = 100_000;

const unknown = (what: string): never => {
  throw new RegexSyntaxUnknown(what);
};

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
