/**
 * Field paths: `.a.b[0]."odd key"[-1]`, one syntax shared by config options, templates and remap.
 * A leading `.` is optional in config strings (`a.b` = `.a.b`). Parse once at build time; the
 * per-event functions walk the parsed segments.
 */
import { type ObjectValue, type Value, isObject } from './value.js';

/** A field name or an array index (negative counts from the end). */
export type Segment = string | number;
export type Path = readonly Segment[];

/** Thrown for a malformed path; `at` is the character offset of the problem. */
export class PathSyntaxError extends Error {
  constructor(
    readonly path: string,
    readonly at: number,
    reason: string,
  ) {
    super(`invalid path "${path}" at ${at}: ${reason}`);
  }
}

const FIELD_CHAR = /[A-Za-z0-9_@$]/;

/** Parses a path; `.` alone is the root (empty path). */
export function parsePath(text: string): Path {
  const segs: Segment[] = [];
  let i = 0;
  const n = text.length;
  if (n === 0) throw new PathSyntaxError(text, 0, 'empty path');
  if (text === '.') return segs;
  let expectField = text[0] !== '.' && text[0] !== '[';
  while (i < n) {
    const c = text[i]!;
    if (expectField || c === '.') {
      if (!expectField) i++;
      expectField = false;
      if (i >= n) throw new PathSyntaxError(text, i, 'a field name must follow "."');
      if (text[i] === '"') {
        let j = i + 1;
        let name = '';
        while (j < n && text[j] !== '"') {
          if (text[j] === '\\' && j + 1 < n) {
            name += text[j + 1];
            j += 2;
          } else name += text[j++];
        }
        if (j >= n) throw new PathSyntaxError(text, i, 'unterminated quoted field');
        segs.push(name);
        i = j + 1;
      } else {
        const start = i;
        while (i < n && FIELD_CHAR.test(text[i]!)) i++;
        // Vector accepts '-' inside plain field names as well (`.foo-bar`).
        while (i < n && (FIELD_CHAR.test(text[i]!) || text[i] === '-')) i++;
        if (i === start) throw new PathSyntaxError(text, i, `unexpected character "${text[i]}"`);
        segs.push(text.slice(start, i));
      }
    } else if (c === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) throw new PathSyntaxError(text, i, 'unterminated index');
      const inner = text.slice(i + 1, close).trim();
      if (!/^-?\d+$/.test(inner)) throw new PathSyntaxError(text, i + 1, 'index must be an integer');
      segs.push(Number(inner));
      i = close + 1;
    } else {
      throw new PathSyntaxError(text, i, `unexpected character "${c}"`);
    }
  }
  return segs;
}

/** Renders a path back to its canonical text (`.a."b c"[0]`). */
export function formatPath(path: Path): string {
  if (path.length === 0) return '.';
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z0-9_@$][A-Za-z0-9_@$-]*$/.test(s) && !/^\d+$/.test(s)) out += '.' + s;
    else out += '."' + s.replace(/["\\]/g, (m) => '\\' + m) + '"';
  }
  return out;
}

/** Reads the value at path; undefined when any segment is missing. */
export function getPath(root: Value, path: Path): Value | undefined {
  let cur: Value | undefined = root;
  for (let i = 0; i < path.length; i++) {
    const s = path[i]!;
    if (typeof s === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[s < 0 ? cur.length + s : s];
    } else {
      if (!isObject(cur)) return undefined;
      cur = Object.prototype.hasOwnProperty.call(cur, s) ? cur[s] : undefined;
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * Writes value at path, creating objects (for names) and arrays (for indexes, null-padded) on the
 * way, replacing non-container intermediates. Returns false only for an out-of-range negative index.
 */
export function setPath(root: ObjectValue, path: Path, value: Value): boolean {
  if (path.length === 0) return false;
  let cur: Value = root;
  for (let i = 0; i < path.length; i++) {
    const s = path[i]!;
    const last = i === path.length - 1;
    const next = path[i + 1];
    if (typeof s === 'number') {
      const arr = cur as Value[];
      let idx = s;
      if (idx < 0) {
        idx = arr.length + idx;
        if (idx < 0) return false;
      }
      while (arr.length < idx) arr.push(null);
      if (last) {
        arr[idx] = value;
        return true;
      }
      cur = ensureContainer(arr, idx, next!);
    } else {
      const obj = cur as ObjectValue;
      if (last) {
        obj[s] = value;
        return true;
      }
      cur = ensureContainer(obj, s, next!);
    }
  }
  return true;
}

function ensureContainer(holder: ObjectValue | Value[], key: string | number, next: Segment): Value {
  const existing = (holder as Record<string | number, Value>)[key];
  if (typeof next === 'number') {
    if (Array.isArray(existing)) return existing;
    const arr: Value[] = [];
    (holder as Record<string | number, Value>)[key] = arr;
    return arr;
  }
  if (isObject(existing)) return existing;
  const obj: ObjectValue = {};
  (holder as Record<string | number, Value>)[key] = obj;
  return obj;
}

/** Removes the value at path and returns it (undefined when absent). Arrays close the gap. */
export function removePath(root: Value, path: Path): Value | undefined {
  if (path.length === 0) return undefined;
  const parent = getPath(root, path.slice(0, -1));
  const s = path[path.length - 1]!;
  if (typeof s === 'number') {
    if (!Array.isArray(parent)) return undefined;
    const idx = s < 0 ? parent.length + s : s;
    if (idx < 0 || idx >= parent.length) return undefined;
    return parent.splice(idx, 1)[0];
  }
  if (!isObject(parent) || !Object.prototype.hasOwnProperty.call(parent, s)) return undefined;
  const v = parent[s];
  delete parent[s];
  return v;
}

/** Memoised parse for config-time callers that see the same path strings repeatedly. */
const cache = new Map<string, Path>();
export function path(text: string): Path {
  let p = cache.get(text);
  if (!p) {
    p = parsePath(text);
    cache.set(text, p);
  }
  return p;
}
