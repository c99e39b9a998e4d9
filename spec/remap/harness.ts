/**
 * Runs one VRL conformance case (`# object:`, `# result:`, `# read_only:` headers, then the program)
 * the way VRL's own test harness judges it: result value as JSON, runtime error text, abort object,
 * or the rendered compile diagnostics.
 */
import { readFileSync } from 'node:fs';
import { Float, Timestamp, type Value, isObject, valueEquals } from '../../lib/value.js';
import { CompileError, compile, formatDiagnostics } from '../../remap/index.js';
import type { ReadOnlyPath } from '../../remap/compiler.js';
import { VrlRegex } from '../../remap/regex.js';
import { lossyText } from '../../remap/stdlib/bytes.js';

export interface Case {
  readonly source: string;
  readonly object: Value;
  readonly result: string;
  readonly approx: boolean;
  readonly skip: boolean;
  readonly checkDiagnostics: boolean;
  readonly readOnly: ReadOnlyPath[];
}

export interface Outcome {
  readonly pass: boolean;
  readonly got: string;
}

/** Parses JSON into values, keeping `1.0` a float and `1` an integer. */
export function parseJsonValue(text: string): Value {
  let i = 0;
  const s = text;
  const ws = (): void => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const val = (): Value => {
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      const o: { [k: string]: Value } = {};
      ws();
      if (s[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        if (s[i++] !== ':') throw new Error('expected :');
        o[k] = val();
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i++] !== '}') throw new Error('expected }');
        return o;
      }
    }
    if (c === '[') {
      i++;
      const a: Value[] = [];
      ws();
      if (s[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(val());
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i++] !== ']') throw new Error('expected ]');
        return a;
      }
    }
    if (c === '"') return str();
    if (s.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (s.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (s.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(s.slice(i));
    if (!m) throw new Error(`unexpected ${c} at ${i}`);
    i += m[0].length;
    return m[1] || m[2] ? new Float(Number(m[0])) : Number(m[0]);
  };
  const str = (): string => {
    if (s[i] !== '"') throw new Error('expected string');
    let j = i + 1;
    while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    const out = JSON.parse(s.slice(i, j + 1)) as string;
    i = j + 1;
    return out;
  };
  const v = val();
  ws();
  if (i !== s.length) throw new Error('trailing characters');
  return v;
}

/** Reads a case file as VRL's harness does. */
export function readCase(path: string): Case {
  const content = readFileSync(path, 'utf8');
  let source = '';
  let object = '';
  let result = '';
  let approx = false;
  const readOnly: ReadOnlyPath[] = [];
  let mode: 'none' | 'object' | 'result' | 'done' = 'none';
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let line of lines) {
    if (line.startsWith('#') && mode !== 'done') {
      line = line.slice(1);
      if (line.startsWith(' ')) line = line.slice(1);
      const ro = /^(read_only|read_only_recursive|read_only_metadata|read_only_metadata_recursive):\s*(.*)$/.exec(line);
      if (ro) {
        const path = ro[2]!
          .trim()
          .split('.')
          .filter(Boolean)
          .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
        readOnly.push({ meta: ro[1]!.includes('metadata'), recursive: ro[1]!.endsWith('recursive'), path });
        continue;
      }
      if (line.startsWith('object:')) {
        mode = 'object';
        line = line.slice(7).trimStart();
      } else if (line.startsWith('result: ~')) {
        mode = 'result';
        approx = true;
        line = line.slice(9).trimStart();
      } else if (line.startsWith('result:')) {
        mode = 'result';
        line = line.slice(7).trimStart();
      }
      if (mode === 'result') result += line + '\n';
      else if (mode === 'object') object += line;
    } else {
      mode = 'done';
      source += line + '\n';
    }
  }
  return {
    source,
    object: object ? parseJsonValue(object) : {},
    result: result.trimEnd(),
    approx,
    skip: content.startsWith('# SKIP'),
    checkDiagnostics: content.startsWith('# DIAGNOSTICS'),
    readOnly,
  };
}

/** JSON view of a result as VRL's harness builds it (timestamps and regexes as strings). */
function jsonish(v: Value): Value {
  if (typeof v === 'string') return lossyText(v);
  if (v instanceof Timestamp) return v.toString();
  if (v instanceof RegExp) return v instanceof VrlRegex ? v.pattern : v.source;
  if (v instanceof Float) return Number.isFinite(v.value) ? v : null;
  if (Array.isArray(v)) return v.map(jsonish);
  if (isObject(v)) {
    const o: { [k: string]: Value } = {};
    for (const k in v) o[k] = jsonish(v[k]!);
    return o;
  }
  return v;
}

function wantValue(want: string): Value {
  if (want.startsWith("r'") && want.endsWith("'")) return want.slice(2, -1).replace(/\\'/g, "'");
  if (want.startsWith("t'") && want.endsWith("'")) {
    const t = Timestamp.parse(want.slice(2, -1));
    return t ? t.toString() : want;
  }
  if (want.startsWith("s'") && want.endsWith("'")) return want.slice(2, -1);
  try {
    return parseJsonValue(want.trim());
  } catch {
    return want;
  }
}

function partialDiagnostic(got: string, want: string): boolean {
  const gl = got.split('\n').filter((l) => l.trim().startsWith('error[E'));
  const wl = want.trim().split('\n');
  const n = Math.min(gl.length, wl.length);
  for (let i = 0; i < n; i++) if (!gl[i]!.includes(wl[i]!)) return false;
  return true;
}

const show = (v: Value): string => JSON.stringify(v, (_k, x: unknown) => (x instanceof Float ? `${x.value}f` : x));

/** Compiles and runs one case; `pass` says whether VRL's harness would accept the outcome. */
export function runCase(c: Case): Outcome {
  const want = c.result.trim();
  let program;
  try {
    program = compile(c.source, { readOnly: c.readOnly });
  } catch (e) {
    if (!(e instanceof CompileError)) return { pass: false, got: `crash: ${(e as Error).stack}` };
    const got = formatDiagnostics(c.source, e.diagnostics).trim();
    return { pass: (c.approx && partialDiagnostic(got, want)) || got === want, got };
  }
  if (c.skip) return { pass: true, got: 'compile only' };
  if (c.checkDiagnostics) {
    const got = formatDiagnostics(c.source, program.warnings).trim();
    return { pass: got === want, got };
  }
  if (program.warnings.length > 0) return { pass: false, got: formatDiagnostics(c.source, program.warnings) };
  let r;
  try {
    r = program.run(c.object, {});
  } catch (e) {
    return { pass: false, got: `crash: ${(e as Error).stack}` };
  }
  if (r.ok) {
    const got = jsonish(r.value);
    return { pass: valueEquals(got, wantValue(want)), got: show(got) };
  }
  const got = r.error.trim();
  if ((c.approx && partialDiagnostic(got, want)) || got === want) return { pass: true, got };
  if (r.aborted) {
    let w: Value;
    try {
      w = parseJsonValue(want);
    } catch {
      w = want;
    }
    const obj = jsonish(r.target);
    return { pass: valueEquals(obj, w), got: `abort: ${show(obj)}` };
  }
  return { pass: false, got };
}
