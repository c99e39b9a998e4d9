/**
 * Path patterns of `include` and `exclude`, and the directory walk that finds the files they
 * match. Patterns are shell globs on absolute paths: `*` and `?` stay within one path segment,
 * `[…]` is a character class (`[!…]` negated), `{a,b}` alternatives, and a `**` segment matches
 * any number of directories, none included. Written here because Node 20's `path.matchesGlob`
 * prints an experimental-feature warning and `fs.promises.glob` does not exist before Node 22.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';

/** One compiled pattern: the regular expression and the directory the walk starts from. */
export interface Glob {
  readonly pattern: string;
  readonly regex: RegExp;
  /** The longest leading directory without glob characters. */
  readonly base: string;
  /** Whether the pattern can match below `base`'s direct children (more segments, or `**`). */
  readonly deep: boolean;
}

const MAGIC = /[*?[{]/;
const escapeRe = (c: string) => c.replace(/[.+^${}()|[\]\\/*?]/g, '\\$&');

/** Translates one glob segment (no `/`) into a regular expression source. */
function segmentSource(seg: string): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close < 0) out += '\\[';
      else {
        let body = seg.slice(i + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        out += `[${negated ? '^/' : ''}${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (c === '\\' && i + 1 < seg.length) out += escapeRe(seg[++i]!);
    else out += escapeRe(c);
  }
  // an unclosed brace matches literally rather than failing
  return braces > 0 ? escapeRe(seg) : out;
}

/** Compiles a pattern; a relative pattern is taken from the working directory. */
export function compileGlob(pattern: string): Glob {
  const abs = isAbsolute(pattern) ? pattern : resolve(pattern);
  const segs = abs.split(sep).filter((s, i) => s !== '' || i === 0);
  let source = '^';
  const baseSegs: string[] = [];
  let magicSeen = false;
  let deep = false;
  for (let i = 1; i < segs.length; i++) {
    const seg = segs[i]!;
    if (!magicSeen && !MAGIC.test(seg) && i < segs.length - 1) baseSegs.push(seg);
    else {
      if (magicSeen || seg === '**') deep = true;
      magicSeen = true;
    }
    if (seg === '**') {
      // zero or more whole directories: `/a/**/b` matches `/a/b` and `/a/x/y/b`
      source += i === segs.length - 1 ? '(?:/.*)?' : '(?:/[^/]+)*';
    } else source += `/${segmentSource(seg)}`;
  }
  // a pattern with no glob character matches exactly one path; its directory is the walk's base
  return { pattern, regex: new RegExp(`${source}$`), base: `/${baseSegs.join('/')}`, deep };
}

/** Why a path could not be listed or read (EACCES, ELOOP …); the walk goes on without it. */
export type WalkError = (path: string, err: NodeJS.ErrnoException) => void;

/**
 * Every regular file (symbolic links followed) whose path matches one of `include` and none of
 * `exclude`, each once, in walk order. Directories are walked without following symbolic links
 * to directories, so a link loop cannot trap the walk; a directory that matches is skipped.
 * A listed entry that cannot be found (a dangling symbolic link, a file deleted meanwhile) goes
 * to `onMissing`; a pattern without glob characters naming no file does not.
 */
export function findFiles(include: readonly Glob[], exclude: readonly Glob[], onError: WalkError, onMissing?: WalkError): string[] {
  const found = new Set<string>();
  const consider = (path: string, listed: boolean) => {
    if (found.has(path)) return;
    if (!include.some((g) => g.regex.test(path)) || exclude.some((g) => g.regex.test(path))) return;
    try {
      if (statSync(path).isFile()) found.add(path);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code !== 'ENOENT') onError(path, e);
      else if (listed) onMissing?.(path, e);
    }
  };
  const walk = (dir: string, deep: boolean) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') onError(dir, e);
      return;
    }
    for (const d of entries) {
      const path = dir === '/' ? `/${d.name}` : join(dir, d.name);
      if (d.isDirectory()) {
        if (deep) walk(path, deep);
      } else consider(path, true);
    }
  };
  // one walk per base directory, as deep as the deepest pattern there needs
  const bases = new Map<string, boolean>();
  for (const g of include) {
    if (!MAGIC.test(g.pattern)) consider(resolve(g.pattern), false);
    else bases.set(g.base, (bases.get(g.base) ?? false) || g.deep);
  }
  for (const [base, deep] of bases) walk(base, deep);
  return [...found];
}
