/**
 * Loki's stream-label rules for the Loki peer: the label string of a pushed stream is a
 * Prometheus label set (`{app="web", env="prod"}`) read by the PromQL metric parser, then
 * validated (at least one label, no repeated name). Quoted values use Go string syntax, so an
 * unescaped `"` inside a value ends it and the rest fails to parse, as on the real server.
 */

/** Label names as Prometheus defines them. */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Messages of Loki's validation (pkg/validation), with their placeholders filled in. */
export const lokiMessages = {
  invalidLabels: (labels: string, reason: string) => `Error parsing labels '${labels}' with error: ${reason}`,
  missingLabels: () => 'error at least one label pair is required per stream',
  duplicateLabel: (labels: string, name: string) => `stream '${labels}' has duplicate label name: '${name}'`,
  tooManyLabels: (labels: string, n: number, limit: number) => `entry for stream '${labels}' has ${n} label names; limit ${limit}`,
};

class LabelSyntaxError extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** Reads a quoted string at `s[i]` (`"…"`, `'…'` with Go escapes, or a raw `` `…` ``); returns the value and the end. */
function readString(s: string, i: number): [string, number] {
  const quote = s[i]!;
  let out = '';
  i++;
  if (quote === '`') {
    const end = s.indexOf('`', i);
    if (end < 0) throw new LabelSyntaxError('unterminated raw string');
    return [s.slice(i, end), end + 1];
  }
  for (;;) {
    if (i >= s.length || s[i] === '\n') throw new LabelSyntaxError('unterminated quoted string');
    const c = s[i]!;
    if (c === quote) return [out, i + 1];
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = s[i + 1];
    if (e === undefined) throw new LabelSyntaxError('unterminated quoted string');
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (e === quote) {
      out += quote;
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = s.slice(i + 2, i + 2 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new LabelSyntaxError(`invalid escape sequence \\${e}`);
      out += e === 'x' ? String.fromCharCode(parseInt(hex, 16)) : String.fromCodePoint(parseInt(hex, 16));
      i += 2 + n;
    } else if (e >= '0' && e <= '7') {
      const oct = s.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(oct)) throw new LabelSyntaxError('invalid octal escape');
      out += String.fromCharCode(parseInt(oct, 8));
      i += 4;
    } else {
      throw new LabelSyntaxError(`unknown escape sequence \\${e}`);
    }
  }
}

const skipSpace = (s: string, i: number) => {
  while (i < s.length && /\s/.test(s[i]!)) i++;
  return i;
};

/**
 * Parses a label set. Returns the pairs in written order, or the parse error text. Only `=`
 * pairs are allowed (a stream selector's `!=`, `=~` are not labels); a trailing comma is fine.
 */
export function parseLabelSet(text: string): { ok: true; pairs: [string, string][] } | { ok: false; reason: string } {
  const pairs: [string, string][] = [];
  try {
    let i = skipSpace(text, 0);
    if (text[i] !== '{') throw new LabelSyntaxError(`1:${i + 1}: parse error: unexpected character: '${text[i] ?? 'EOF'}', expected "{"`);
    i = skipSpace(text, i + 1);
    while (text[i] !== '}') {
      const nameStart = i;
      while (i < text.length && /[a-zA-Z0-9_]/.test(text[i]!)) i++;
      const name = text.slice(nameStart, i);
      if (!LABEL_NAME.test(name)) throw new LabelSyntaxError(`1:${nameStart + 1}: parse error: unexpected character inside braces: '${text[nameStart] ?? 'EOF'}'`);
      i = skipSpace(text, i);
      if (text[i] !== '=' || text[i + 1] === '~') throw new LabelSyntaxError(`1:${i + 1}: parse error: unexpected character after label name, expected "="`);
      i = skipSpace(text, i + 1);
      if (text[i] !== '"' && text[i] !== "'" && text[i] !== '`') throw new LabelSyntaxError(`1:${i + 1}: parse error: unexpected character, expected string`);
      const [value, end] = readString(text, i);
      pairs.push([name, value]);
      i = skipSpace(text, end);
      if (text[i] === ',') i = skipSpace(text, i + 1);
      else if (text[i] !== '}') throw new LabelSyntaxError(`1:${i + 1}: parse error: unexpected character: '${text[i] ?? 'EOF'}', expected "," or "}"`);
    }
    if (skipSpace(text, i + 1) !== text.length) throw new LabelSyntaxError(`1:${i + 2}: parse error: unexpected text after "}"`);
  } catch (err) {
    if (err instanceof LabelSyntaxError) return { ok: false, reason: err.message };
    throw err;
  }
  return { ok: true, pairs };
}

/** The canonical label text Loki stores: pairs sorted by name, `{a="1", b="2"}`, values Go-quoted. */
export function canonicalLabels(labels: Readonly<Record<string, string>>): string {
  const names = Object.keys(labels).sort();
  return `{${names.map((n) => `${n}=${JSON.stringify(labels[n])}`).join(', ')}}`;
}

/**
 * Checks a parsed stream like Loki's validator, in its order: at least one label, at most
 * `maxLabelNames`, no repeated name. Returns the error message or undefined.
 */
export function validateLabels(written: string, pairs: readonly [string, string][], maxLabelNames: number): string | undefined {
  if (pairs.length === 0) return lokiMessages.missingLabels();
  if (pairs.length > maxLabelNames) return lokiMessages.tooManyLabels(written, pairs.length, maxLabelNames);
  const seen = new Set<string>();
  for (const [name] of pairs) {
    if (seen.has(name)) return lokiMessages.duplicateLabel(written, name);
    seen.add(name);
  }
  return undefined;
}
