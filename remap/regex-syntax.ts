/**
 * The structure of a translated remap regex (JavaScript syntax as V8 reads it without the `u`
 * flag), for regex-rewrite.ts and regex-analysis.ts. Anything this parser does not follow throws
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

/** Whether the node holds a capture group. */
export const hasCapture = (node: RegexNode): boolean => {
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
export const canBeEmpty = (node: RegexNode): boolean => {
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
