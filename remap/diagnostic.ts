/**
 * Compile-time diagnostics of the remap language, rendered in VRL's layout:
 * `error[E###]: title`, a source snippet with labelled spans, then `= note` lines.
 */

/** Byte-agnostic span: [start, end) character offsets into the program source. */
export type Span = readonly [number, number];

/** A labelled span; primary labels underline with `^`, secondary ones with `-`. */
export interface Label {
  readonly message: string;
  readonly span: Span;
  readonly primary: boolean;
}

/** Closing note of every diagnostic. */
export const DOCS_NOTE = 'see language documentation at https://vrl.dev';
/** Closing note of every diagnostic. */
export const REPL_NOTE = 'try your code in the VRL REPL, learn more at https://vrl.dev/examples';
/** Note of the error-handling diagnostics (E100, E103, E110, E630, ...). */
export const ERROR_HANDLING_NOTE = 'see documentation about error handling at https://errors.vrl.dev/#handling';
/** Note of the type diagnostics that suggest a coercion function. */
export const COERCE_NOTE = 'see documentation about type coercion at https://functions.vrl.dev/#coerce-functions';
/** Hint of the type diagnostics that suggest a coercion function. */
export const COERCE_HINT = 'hint: coerce the value to the required type using a coercion function';
/** The `learn more about error code N` note. */
export const codeNote = (code: number): string => `learn more about error code ${code} at https://errors.vrl.dev/${code}`;

/** One compile-time problem (or warning). */
export class Diagnostic {
  constructor(
    readonly severity: 'error' | 'warning',
    readonly code: number,
    readonly message: string,
    readonly labels: readonly Label[],
    /** Notes without the two trailing generic ones (added when rendering). */
    readonly notes: readonly string[] = [],
  ) {}

  /** One line: `error[E100]: unhandled error`. */
  get title(): string {
    return `${this.severity}[E${String(this.code).padStart(3, '0')}]: ${this.message}`;
  }
}

/** A primary (`^`) label. */
export const primary = (message: string, span: Span): Label => ({ message, span, primary: true });
/** A secondary (`-`) label. */
export const secondary = (message: string, span: Span): Label => ({ message, span, primary: false });

/** Thrown by `compile` when a program has errors; `diagnostics` holds them all. */
export class CompileError extends Error {
  constructor(
    readonly diagnostics: readonly Diagnostic[],
    readonly source: string,
  ) {
    super(formatDiagnostics(source, diagnostics));
    this.name = 'CompileError';
  }
}

function lineStarts(src: string): number[] {
  const starts = [0];
  for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function locate(starts: number[], offset: number): [number, number] {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return [lo, offset - starts[lo]!];
}

/** Renders diagnostics as VRL prints them (no colours, trailing spaces trimmed). */
export function formatDiagnostics(src: string, diags: readonly Diagnostic[]): string {
  const starts = lineStarts(src);
  const out: string[] = [];
  for (const d of diags) out.push(...renderOne(src, starts, d), '');
  return out.map((l) => l.trimEnd()).join('\n').trim();
}

function renderOne(src: string, starts: number[], d: Diagnostic): string[] {
  const lines: string[] = [d.title];
  const notes = [...d.notes, DOCS_NOTE, REPL_NOTE];
  const labels = d.labels;
  const multi = labels.filter((l) => locate(starts, l.span[0])[0] !== locate(starts, Math.max(l.span[0], l.span[1] - 1))[0]);
  if (multi.length > 0 && multi.length === labels.length && labels.every((l) => l.span[0] === labels[0]!.span[0] && l.span[1] === labels[0]!.span[1])) {
    lines.push(...renderMultiLine(src, starts, labels));
    for (const n of notes) lines.push(`${' '.repeat(String(locate(starts, labels[0]!.span[1] - 1)[0] + 1).length)} = ${n}`);
    return lines;
  }
  const main = labels.find((l) => l.primary) ?? labels[0];
  const byLine = new Map<number, { label: Label; start: number; end: number }[]>();
  let maxLine = 0;
  for (const l of labels) {
    const [line, col] = locate(starts, l.span[0]);
    const lineEnd = (starts[line + 1] ?? src.length + 1) - 1;
    const end = Math.min(l.span[1], lineEnd) - starts[line]!;
    const list = byLine.get(line) ?? [];
    list.push({ label: l, start: col, end: Math.max(end, col + 1) });
    byLine.set(line, list);
    maxLine = Math.max(maxLine, line + 1);
  }
  const width = String(maxLine).length;
  const pad = ' '.repeat(width);
  if (main) {
    const [line, col] = locate(starts, main.span[0]);
    lines.push(`${pad} ┌─ :${line + 1}:${col + 1}`);
    lines.push(`${pad} │`);
    const sorted = [...byLine.keys()].sort((a, b) => a - b);
    let prev = -1;
    for (const ln of sorted) {
      if (prev >= 0 && ln > prev + 1) lines.push(`${pad} ·`);
      prev = ln;
      const text = src.slice(starts[ln]!, (starts[ln + 1] ?? src.length + 1) - 1);
      lines.push(`${String(ln + 1).padStart(width)} │ ${text}`);
      lines.push(...renderLabels(byLine.get(ln)!).map((s) => `${pad} │ ${s}`));
    }
    lines.push(`${pad} │`);
  }
  for (const n of notes) lines.push(`${pad} = ${n}`);
  return lines;
}

/** Labels that all cover the same multi-line span: one gutter column per label, codespan style. */
function renderMultiLine(src: string, starts: number[], labels: readonly Label[]): string[] {
  const [startLine, startCol] = locate(starts, labels[0]!.span[0]);
  const [endLine, endCol] = locate(starts, labels[0]!.span[1] - 1);
  const width = String(endLine + 1).length;
  const pad = ' '.repeat(width);
  const n = labels.length;
  const text = (ln: number): string => src.slice(starts[ln]!, (starts[ln + 1] ?? src.length + 1) - 1);
  const out: string[] = [`${pad} ┌─ :${startLine + 1}:${startCol + 1}`, `${pad} │`];
  out.push(`${String(startLine + 1).padStart(width)} │ ${'  '.repeat(n)}${text(startLine)}`);
  labels.forEach((l, i) => {
    out.push(`${pad} │ ${'│ '.repeat(i)}╭${'─'.repeat(2 * n + startCol - 2 * i - 1)}${l.primary ? '^' : "'"}`);
  });
  for (let ln = startLine + 1; ln <= endLine; ln++) out.push(`${String(ln + 1).padStart(width)} │ ${'│ '.repeat(n)}${text(ln)}`);
  labels.forEach((l, i) => {
    const chars: string[] = [];
    for (let c = 0; c < 2 * i; c++) chars.push(' ');
    chars.push('╰');
    for (let c = 2 * i + 1; c < 2 * n + endCol; c++) chars.push(c % 2 === 0 && c < 2 * n ? '│' : '─');
    chars.push(l.primary ? '^' : "'");
    out.push(`${pad} │ ${chars.join('')} ${l.message}`);
  });
  out.push(`${pad} │`);
  return out;
}

/** Inserts keeping (start, end) order; equal ranges land where Rust's binary search puts them. */
function insertSorted<T extends { start: number; end: number }>(list: T[], item: T): void {
  const cmp = (x: T): number => x.start - item.start || x.end - item.end;
  let size = list.length;
  if (size === 0) {
    list.push(item);
    return;
  }
  let base = 0;
  while (size > 1) {
    const half = size >> 1;
    const mid = base + half;
    if (cmp(list[mid]!) <= 0) base = mid;
    size -= half;
  }
  const c = cmp(list[base]!);
  list.splice(c < 0 ? base + 1 : base, 0, item);
}

function renderLabels(list: { label: Label; start: number; end: number }[]): string[] {
  const items: typeof list = [];
  for (const it of list) insertSorted(items, it);
  let carets = '';
  for (const it of items) {
    while (carets.length < it.start) carets += ' ';
    const ch = it.label.primary ? '^' : '-';
    for (let i = it.start; i < it.end; i++) {
      if (i < carets.length) {
        if (it.label.primary) carets = carets.slice(0, i) + '^' + carets.slice(i + 1);
      } else carets += ch;
    }
  }
  // the last label trails the underline when it has a message and overlaps no other label
  let trailing: (typeof items)[number] | undefined;
  const last = items[items.length - 1];
  if (last && last.label.message !== '' && items.every((o) => o === last || o.end <= last.start)) trailing = last;
  const out: string[] = [];
  out.push(trailing ? `${carets} ${trailing.label.message}` : carets);
  const rest = items.filter((i) => i !== trailing && i.label.message !== '');
  if (rest.length === 0) return out;
  const cols = [...new Set(rest.map((r) => r.start))].sort((a, b) => a - b);
  const pointerLine = (upto: number, inclusive: boolean): string => {
    let s = '';
    for (const c of cols) {
      if (inclusive ? c > upto : c >= upto) break;
      while (s.length < c) s += ' ';
      s += '│';
    }
    return s;
  };
  out.push(pointerLine(Infinity, true));
  for (let i = rest.length - 1; i >= 0; i--) {
    const r = rest[i]!;
    let s = pointerLine(r.start, false);
    while (s.length < r.start) s += ' ';
    out.push(s + r.label.message);
  }
  return out;
}
