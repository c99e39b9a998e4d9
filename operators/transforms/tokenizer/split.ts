/**
 * Token splitting for the tokenizer (as Vector's tokenizer splits): white space
 * separates tokens; `"…"` and `[…]` wrap one token whose wrappers are dropped; a backslash makes
 * `"`, `[`, `]` and `\` literal; a token that is `-` or a lone space is null.
 */

/** One token: its text, or null for a blank (`-`, a lone space). */
export type Token = string | null;

const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const OPEN = 91;
const CLOSE = 93;
const BACKSLASH = 92;

function isEscapable(c: number): boolean {
  return c === QUOTE || c === OPEN || c === CLOSE || c === BACKSLASH;
}

/**
 * Reads a wrapped token starting after its opening character; returns the unescaped text and the
 * index after the closing character, or undefined when the wrapper is never closed.
 */
function wrapped(text: string, from: number, close: number): [string, number] | undefined {
  let out = '';
  let runStart = from;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH && i + 1 < text.length && isEscapable(text.charCodeAt(i + 1))) {
      out += text.slice(runStart, i);
      runStart = i + 1; // keep the escaped character, drop the backslash
      i++;
    } else if (c === close) {
      return [out + text.slice(runStart, i), i + 1];
    }
  }
  return undefined;
}

function blank(token: string): Token {
  return token === '-' || token === ' ' ? null : token;
}

/**
 * Splits text into at most `limit` tokens (further tokens are never read). An unclosed `"` or `[`
 * makes the rest of the input one token, wrapper included.
 */
export function splitTokens(text: string, limit = Infinity): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n && tokens.length < limit) {
    let c = text.charCodeAt(i);
    if (c === SPACE || c === TAB) {
      i++;
      continue;
    }
    if (c === QUOTE || c === OPEN) {
      const w = wrapped(text, i + 1, c === QUOTE ? QUOTE : CLOSE);
      if (w) {
        tokens.push(blank(w[0]));
        i = w[1];
      } else {
        tokens.push(blank(text.slice(i)));
        i = n;
      }
      continue;
    }
    // plain run: up to white space or an (unescaped) opening wrapper
    let out = '';
    let runStart = i;
    while (i < n) {
      c = text.charCodeAt(i);
      if (c === SPACE || c === TAB || c === QUOTE || c === OPEN) break;
      if (c === BACKSLASH && i + 1 < n && isEscapable(text.charCodeAt(i + 1))) {
        out += text.slice(runStart, i);
        runStart = i + 1;
        i += 2;
        continue;
      }
      i++;
    }
    tokens.push(blank(out + text.slice(runStart, i)));
  }
  return tokens;
}
