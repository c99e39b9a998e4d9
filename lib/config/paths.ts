/**
 * Which files make a configuration (as in Vector): `--config` paths (comma lists, globs, the
 * format from the extension), `--config-toml|yaml|json` (the format given), and `--config-dir`
 * folders: their own files are whole configs, and the files of their `sources/`, `transforms/`,
 * `sinks/`, `tests/` and `enrichment_tables/` subfolders each hold one item named by the file.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import type { ConfigFormat } from './syntax-error.js';

/** The subfolders of a config folder whose files each hold one item (file name = id). */
export const CONFIG_SECTIONS = ['sources', 'transforms', 'sinks', 'tests', 'enrichment_tables'] as const;
/** One such subfolder. */
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

/** One file to read: its format (else from the extension) and, for folder items, its section. */
export interface ConfigSource {
  readonly path: string;
  readonly format?: ConfigFormat | undefined;
  /** Set for a file of a config folder's subfolder: the file holds one item of this section. */
  readonly section?: ConfigSection | undefined;
}

/** The command line's and environment's config locations, each a list of paths or patterns. */
export interface ConfigLocations {
  readonly config?: readonly string[];
  readonly toml?: readonly string[];
  readonly yaml?: readonly string[];
  readonly json?: readonly string[];
  readonly dirs?: readonly string[];
}

/** The config read when none is named, as Vector reads /etc/vector/vector.yaml. */
export const DEFAULT_CONFIG_PATH = '/etc/weir/weir.yaml';

/** The format a file name implies, if any. */
export function formatOf(file: string): ConfigFormat | undefined {
  const ext = extname(file).toLowerCase();
  if (ext === '.toml') return 'toml';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json') return 'json';
  return undefined;
}

/** Whether the locations name anything at all. */
export const namesAny = (l: ConfigLocations): boolean =>
  [l.config, l.toml, l.yaml, l.json, l.dirs].some((list) => (list ?? []).some((p) => p.split(',').some((x) => x !== '')));

/**
 * Expands the locations into the files to read, sorted and without repeats within each kind. A
 * pattern that matches nothing is a problem (Vector: "Config file not found in path").
 */
export function resolveConfigSources(l: ConfigLocations, problems: ConfigProblem[]): ConfigSource[] {
  const out: ConfigSource[] = [];
  const seen = new Set<string>();
  const add = (s: ConfigSource) => {
    if (seen.has(s.path)) return;
    seen.add(s.path);
    out.push(s);
  };
  const files = (list: readonly string[] | undefined, format: ConfigFormat | undefined) => {
    for (const pattern of splitList(list)) {
      if (!isGlob(pattern)) {
        add({ path: pattern, format });
        continue;
      }
      const matches = expandGlob(pattern).filter(isFile);
      if (matches.length === 0) problems.push({ code: 'WEIR_ERR_CONFIG_FILE', file: pattern, message: 'no file matches this pattern' });
      for (const m of matches) add({ path: m, format });
    }
  };
  files(l.config, undefined);
  files(l.toml, 'toml');
  files(l.yaml, 'yaml');
  files(l.json, 'json');
  for (const pattern of splitList(l.dirs)) {
    const dirs = isGlob(pattern) ? expandGlob(pattern).filter(isDir) : [pattern];
    if (dirs.length === 0) problems.push({ code: 'WEIR_ERR_CONFIG_FILE', file: pattern, message: 'no folder matches this pattern' });
    for (const dir of dirs) {
      const listed = listDir(dir, problems);
      if (!listed) continue;
      for (const f of listed.files) add({ path: f });
      for (const section of CONFIG_SECTIONS) {
        const sub = join(dir, section);
        if (!isDir(sub)) continue;
        for (const f of listDir(sub, problems)?.files ?? []) add({ path: f, section });
      }
    }
  }
  return out;
}

/** The component id (or test name) a folder item stands for: its file name without the extension. */
export const itemName = (path: string): string => basename(path, extname(path));

function splitList(list: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const p of list ?? []) for (const part of p.split(',')) if (part) out.push(part);
  return out;
}

/** Config files of a folder (known extensions, sorted); unreadable folders are problems. */
function listDir(dir: string, problems: ConfigProblem[]): { files: string[] } | undefined {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    problems.push({ code: 'WEIR_ERR_CONFIG_FILE', file: dir, message: `cannot read config folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
    return undefined;
  }
  return { files: names.filter((n) => formatOf(n) !== undefined).map((n) => join(dir, n)).filter(isFile) };
}

const isGlob = (s: string) => /[*?[]/.test(s);

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `*`, `?` and `[…]` within one path segment; a `**` segment spans any number of folders. */
function segmentRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const close = segment.indexOf(']', i + 1);
      if (close < 0) re += '\\[';
      else {
        re += '[' + segment.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
        i = close;
      }
    } else re += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The existing paths a glob pattern matches, sorted. Names starting with `.` match only a pattern that does. */
export function expandGlob(pattern: string): string[] {
  let bases: string[] = [pattern.startsWith('/') ? '/' : '.'];
  for (const segment of pattern.split('/').filter((s) => s !== '')) {
    const next: string[] = [];
    if (segment === '**') {
      for (const b of bases) next.push(...walkDirs(b));
    } else if (!isGlob(segment)) {
      for (const b of bases) next.push(join(b, segment));
    } else {
      const re = segmentRegExp(segment);
      for (const b of bases) {
        let names: string[];
        try {
          names = readdirSync(b);
        } catch {
          continue;
        }
        for (const n of names) if ((!n.startsWith('.') || segment.startsWith('.')) && re.test(n)) next.push(join(b, n));
      }
    }
    bases = [...new Set(next)];
  }
  return bases.filter((p) => isFile(p) || isDir(p)).sort();
}

/** A folder and every folder below it (not following names starting with `.`). */
function walkDirs(root: string): string[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    let names: string[];
    try {
      names = readdirSync(out[i]!);
    } catch {
      continue;
    }
    for (const n of names.sort()) {
      const p = join(out[i]!, n);
      if (!n.startsWith('.') && isDir(p)) out.push(p);
    }
  }
  return out;
}
