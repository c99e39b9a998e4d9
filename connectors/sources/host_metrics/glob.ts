/**
 * Include/exclude glob lists of the `host_metrics` filters, with the rules of the Rust `glob`
 * crate's `Pattern` that Vector uses: `*` matches any run of characters, `/` included, `?` one
 * character, `[abc]`, `[a-z]` and `[!abc]` one character of (not of) a set; matching is
 * case-sensitive and covers the whole name. Not the `file` source's globs, where `*` stays within
 * a path segment and braces alternate: a cgroup name `user.slice/*` must reach every depth.
 */

/** A compiled pattern, or the reason it is not a valid one. */
export function compileGlob(pattern: string): RegExp | string {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return `unclosed character class at ${i}`;
      let body = pattern.slice(i + 1, end);
      const negated = body.startsWith('!');
      if (negated) body = body.slice(1);
      re += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(re + '$', 's');
}

/** An include and an exclude list; `undefined` lists impose nothing. */
export interface FilterList {
  readonly includes?: readonly string[] | undefined;
  readonly excludes?: readonly string[] | undefined;
}

/** A compiled {@link FilterList}: whether a name passes. */
export type NameFilter = (name: string | undefined) => boolean;

/**
 * Compiles a list (checked at validation, so patterns compile here). An absent name passes only
 * when there is no include list, as in Vector: a mount without a device fails `devices.includes`.
 */
export function compileFilter(list: FilterList): NameFilter {
  const inc = list.includes?.map((p) => compileGlob(p) as RegExp);
  const exc = list.excludes?.map((p) => compileGlob(p) as RegExp);
  return (name) => {
    if (inc) {
      if (name === undefined || !inc.some((r) => r.test(name))) return false;
    }
    return !exc || name === undefined || !exc.some((r) => r.test(name));
  };
}
