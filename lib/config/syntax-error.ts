/**
 * Locates a parser's syntax error in config text: 1-based line and column, and the parser's
 * message without its own position wording or code excerpt (the problem line carries both).
 */

/** The config file formats weir reads. */
export type ConfigFormat = 'toml' | 'yaml' | 'json';

/** A syntax error reduced to one line of text and, where known, where it is. */
export interface SyntaxFault {
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

/** Describes what a TOML, YAML or JSON parser threw for `text`; positions are 1-based. */
export function describeSyntaxError(err: unknown, format: ConfigFormat, text: string): SyntaxFault {
  const e = err as { message?: unknown; line?: unknown; column?: unknown; linePos?: { line: number; col: number }[] };
  const first = String(e.message ?? err).split('\n')[0]!;
  if (format === 'toml') {
    // smol-toml's TomlError: line and column are 1-based
    const message = `invalid TOML: ${first.replace(/^Invalid TOML document:\s*/, '')}`;
    return typeof e.line === 'number' && typeof e.column === 'number' ? { message, line: e.line, column: e.column } : { message };
  }
  if (format === 'yaml') {
    const message = `invalid YAML: ${first.replace(/ at line \d+, column \d+:?$/, '')}`;
    const pos = e.linePos?.[0];
    return pos ? { message, line: pos.line, column: pos.col } : { message };
  }
  // V8 names an offset only for some errors ("at position 11"), and for others quotes the whole
  // text instead, so the offset comes from a scan of our own
  const reason = String(e.message ?? err)
    .replace(/,\s*(?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '') // V8 quotes the text, which may span lines
    .replace(/\s+(?:in|after) JSON at position \d+.*$/s, '')
    .replace(/^Unexpected end of JSON input$/, 'unexpected end of input');
  const message = `invalid JSON: ${reason.split('\n')[0]}`;
  const offset = jsonErrorOffset(text);
  return offset < 0 ? { message } : { message, ...lineColumn(text, offset) };
}

/** 1-based line and column of a UTF-16 offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}


/** Offset of the first character that makes `text` invalid JSON (RFC 8259), or -1 if it is valid. */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const space = () => {
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++;
  };
  const expect = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const isDigit = () => {
    const c = text.charCodeAt(i); // NaN past the end
    return c >= 0x30 && c <= 0x39;
  };
  const digits = () => {
    if (!isDigit()) fail();
    while (isDigit()) i++;
  };
  // fails at the first character that cannot continue the number, as V8 does
  const number = () => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) || c < 0x20) fail();
      if (c === 0x22) return void i++;
      i++;
      if (c !== 0x5c) continue;
      // an escape fails at the character after the backslash, or at its first bad hex digit
      const e = text[i];
      if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
      else if (text[i] === 'u') {
        i++;
        for (let k = 0; k < 4; k++, i++) if (!/^[0-9a-fA-F]$/.test(text[i] ?? '')) fail();
      } else fail();
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (c === '{') {
          space();
          if (text[i] !== '"') fail();
          string();
          space();
          expect(':');
        }
        value();
        space();
        if (text[i] === close) return void i++;
        expect(',');
      }
    }
    if (c === '"') return string();
    if (c === 't') return expect('true');
    if (c === 'f') return expect('false');
    if (c === 'n') return expect('null');
    number();
  };
  try {
    value();
    space();
    return i < text.length ? i : -1;
  } catch (at) {
    return at as number;
  }
}
