/**
 * Regular expressions of the remap language use Rust `regex` syntax; they are translated once at
 * compile time into JS RegExp (named groups `(?P<n>`, leading inline flags, `\A`/`\z`).
 */

/** A compiled remap regex; `source` reports the program's pattern text, not the JS translation. */
export class VrlRegex extends RegExp {
  static override get [Symbol.species](): RegExpConstructor {
    return RegExp;
  }
  readonly pattern: string;
  /** The JS translation of the pattern. */
  readonly js: string;
  constructor(pattern: string, translated: string, flags: string) {
    super(translated, flags);
    this.pattern = pattern;
    this.js = translated;
  }
  override get source(): string {
    return this.pattern;
  }
  override toString(): string {
    return this.pattern;
  }
}

/** Translates and compiles a Rust-syntax pattern; throws Error with a VRL-like reason. */
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
    return new VrlRegex(pattern, text, flags);
  } catch (e) {
    const msg = (e as Error).message;
    if (/Unterminated character class/.test(msg)) throw new Error('unclosed character class: [', { cause: e });
    if (/Unterminated group/.test(msg)) throw new Error('unclosed group', { cause: e });
    throw new Error(msg.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, ''), { cause: e });
  }
}

/** A global-flagged copy for matchAll / replace-all. */
export function globalOf(re: RegExp): RegExp {
  return re.global ? re : new RegExp(re, re.flags + 'g');
}

/** JS source text of a (possibly translated) regex. */
export function jsSource(re: RegExp): string {
  return re instanceof VrlRegex ? re.js : re.source;
}
