/**
 * Where a string option's value lies in its config file, so a position inside the value (a remap
 * program's error on its 3rd line) can be reported as a line of the file. TOML has no parser with
 * positions here, so its tables and keys are found by scanning lines; YAML uses the parser's ranges.
 * JSON and anything not found give undefined: callers then name the option path alone.
 */
import { readFileSync } from 'node:fs';
import { yaml } from '../yaml.js';
import type { ConfigProblem } from '../errors.js';
import { formatOf } from './paths.js';

/** A 1-based line and column. */
export interface FilePosition {
  readonly line: number;
  readonly column: number;
}

/** How the value's own lines sit in the file: its first line's position, and the indent of later lines. */
interface ValueLayout {
  readonly first: FilePosition;
  /** Columns before the text of the value's 2nd and later lines (a YAML block's indent). */
  readonly indent: number;
}

/**
 * The file position of `at` (1-based line and column inside the string value of `path`, e.g.
 * `['transforms', 'fix', 'source']`); undefined for JSON, an unreadable file or a key not found.
 * A file of a config folder's section holds the component alone, so the last key is tried at the top too.
 */
export function positionInOption(file: string, path: readonly string[], at: FilePosition): FilePosition | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const format = formatOf(file);
  const layout = format === 'toml' ? tomlLayout(text, path) : format === 'yaml' ? yamlLayout(text, path) : undefined;
  if (layout === undefined) return undefined;
  if (at.line === 1) return { line: layout.first.line, column: layout.first.column + at.column - 1 };
  return { line: layout.first.line + at.line - 1, column: layout.indent + at.column };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A TOML key as written: bare, or quoted when it holds other characters. */
const tomlKey = (k: string) => `(?:${escapeRe(k)}|"${escapeRe(k)}"|'${escapeRe(k)}')`;

function tomlLayout(text: string, path: readonly string[]): ValueLayout | undefined {
  const lines = text.split('\n');
  const key = path.at(-1)!;
  const table = path.slice(0, -1);
  const header = new RegExp(`^\\s*\\[\\s*${table.map(tomlKey).join('\\s*\\.\\s*')}\\s*\\]\\s*(#.*)?$`);
  const anyHeader = /^\s*\[/;
  const assign = new RegExp(`^(\\s*${tomlKey(key)}\\s*=\\s*)(.*)$`);
  const find = (from: number): ValueLayout | undefined => {
    for (let i = from; i < lines.length; i++) {
      const line = lines[i]!;
      if (anyHeader.test(line)) return undefined; // the next table: the key is not in this one
      const m = assign.exec(line);
      if (!m) continue;
      const lead = m[1]!.length;
      const value = m[2]!;
      const delim = /^('''|"""|'|")/.exec(value)?.[1] ?? '';
      // a newline right after an opening ''' or """ is not part of the string
      if (delim.length === 3 && value.slice(3).trim() === '') return { first: { line: i + 2, column: 1 }, indent: 0 };
      return { first: { line: i + 1, column: lead + delim.length + 1 }, indent: 0 };
    }
    return undefined;
  };
  const at = lines.findIndex((l) => header.test(l));
  if (at >= 0) return find(at + 1);
  // a section file (transforms/fix.toml): the option sits before any table header
  return find(0);
}

function yamlLayout(text: string, path: readonly string[]): ValueLayout | undefined {
  let doc;
  try {
    doc = yaml().parseDocument(text);
  } catch {
    return undefined;
  }
  const node = (doc.getIn(path, true) ?? doc.getIn(path.slice(-1), true)) as { range?: [number, number, number]; type?: string } | undefined;
  if (node?.range === undefined) return undefined;
  const start = node.range[0];
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  const columnOf = (offset: number) => offset - text.lastIndexOf('\n', offset - 1);
  if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
    // the value starts on the line after the `|` or `>` header, indented like all its lines
    const next = text.indexOf('\n', start) + 1;
    const indent = /^ */.exec(text.slice(next))![0].length;
    return { first: { line: lineOf(next), column: indent + 1 }, indent };
  }
  const quoted = node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE' ? 1 : 0;
  return { first: { line: lineOf(start), column: columnOf(start) + quoted }, indent: 0 };
}

/**
 * The problem of a component whose factory threw: with the option path the error names and, when it
 * carries a `position` inside that option's string (a remap program's error), the file's line and
 * column; VRL diagnostic headers (`┌─ :3:6`) then name the file's line too, or else the option path.
 */
export function buildProblem(err: unknown, file: string | undefined, section: string, id: string): ConfigProblem {
  const e = err as Error & { optionPath?: string; position?: FilePosition };
  const component = `${section}.${id}`;
  const base = { code: 'WEIR_ERR_CONFIG_OPTION' as const, file, component, path: e.optionPath, message: e.message };
  if (e.optionPath === undefined || e.position === undefined) return base;
  const keys = [section, id, ...e.optionPath.split('.')];
  const at = file !== undefined ? positionInOption(file, keys, e.position) : undefined;
  const message = e.message.replace(/┌─ :(\d+):(\d+)/g, (whole, l: string, c: string) => {
    const p = file !== undefined ? positionInOption(file, keys, { line: Number(l), column: Number(c) }) : undefined;
    return p ? `┌─ ${file}:${p.line}:${p.column}` : `┌─ ${component}.${e.optionPath}:${l}:${c}`;
  });
  return { ...base, message, ...(at ? { line: at.line, column: at.column } : {}) };
}
