/**
 * The `headers` and `query_parameters` lists: a name without `*` is looked up exactly (its field is
 * written even when the request lacks it, as null); a name with `*` is a glob (`*`, `?`, `[...]`,
 * matched case-insensitively, as Vector's glob matching with default options) that copies every
 * matching name present in the request.
 */

/** One compiled entry of a `headers` or `query_parameters` list. */
export type ParamPattern = { readonly exact: string } | { readonly glob: RegExp };

/** Compiles one entry; a malformed glob (an unclosed `[`) gives a message for the config error. */
export function compileParamPattern(text: string): ParamPattern | string {
  if (!text.includes('*')) return { exact: text };
  let re = '^';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = text.indexOf(']', i + 2);
      if (close < 0) return `invalid pattern "${text}": unclosed "["`;
      let body = text.slice(i + 1, close);
      const negated = body.startsWith('!');
      if (negated) body = body.slice(1);
      re += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close;
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return { glob: new RegExp(`${re}$`, 'is') };
}

/** Compiles a list, dropping duplicates (Vector removes them with a warning, reported through `onDuplicate`). */
export function compileParamList(list: readonly string[], onDuplicate: (name: string) => void): ParamPattern[] {
  const seen = new Set<string>();
  const out: ParamPattern[] = [];
  for (const text of list) {
    if (seen.has(text)) {
      onDuplicate(text);
      continue;
    }
    seen.add(text);
    out.push(compileParamPattern(text) as ParamPattern); // the schema refused malformed entries
  }
  return out;
}

/**
 * The (field, value) pairs a list selects from a request's names and values: exact entries with
 * their value or null; glob entries for every present name that matches. `lookup` finds an exact
 * name (case-insensitive for headers, as HTTP header names are).
 */
export function selectParams(
  patterns: readonly ParamPattern[],
  names: readonly string[],
  lookup: (name: string) => string | undefined,
  visit: (field: string, value: string | null) => void,
): void {
  for (let p = 0; p < patterns.length; p++) {
    const pattern = patterns[p]!;
    if ('exact' in pattern) {
      visit(pattern.exact, lookup(pattern.exact) ?? null);
      continue;
    }
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (pattern.glob.test(name)) visit(name, lookup(name) ?? null);
    }
  }
}
