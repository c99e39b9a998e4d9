/**
 * Hand-written recursive-descent parser for the remap language (VRL grammar): newline-separated
 * expressions, operator precedence `??` < `|| &&` < `== !=` < comparisons < `|` < `+ -` < `* / %`
 * < `!`, paths, literals, containers, calls with closures, if/else, abort and return.
 */
import { Float, Timestamp } from '../lib/value.js';
import type { Arg, AssignTarget, Closure, Expr, Opcode, QueryTarget, Segment, TemplatePart } from './ast.js';
import { Diagnostic, type Span, codeNote, primary } from './diagnostic.js';
import { compileRegex } from './regex.js';

/** A parse failure; carries the diagnostic to report. */
export class ParseFail extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

const RESERVED = new Set([
  'array', 'bool', 'boolean', 'break', 'continue', 'do', 'emit', 'float', 'for', 'forall', 'foreach', 'all', 'each',
  'any', 'try', 'undefined', 'int', 'integer', 'iter', 'object', 'regex', 'string', 'traverse', 'timestamp',
  'duration', 'unless', 'walk', 'while', 'loop',
]);
const KEYWORDS = new Set(['if', 'else', 'null', 'true', 'false', 'abort', 'return']);

const isIdentStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_@]/.test(c);
const isIdentChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_@]/.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

const LEVELS: Opcode[][] = [['??'], ['||', '&&'], ['==', '!='], ['>=', '>', '<=', '<'], ['|'], ['+', '-'], ['*', '/']];

/** Parses a whole program into its root expressions; throws {@link ParseFail}. */
export function parseProgram(src: string): Expr[] {
  const p = new Parser(src);
  return p.program();
}

class Parser {
  pos = 0;
  constructor(readonly src: string) {}

  fail(message: string, span: Span, code = 203, labels?: string[]): never {
    const msgs = labels ?? [message];
    const title = code === 203 || code === 204 ? 'syntax error' : message;
    throw new ParseFail(new Diagnostic('error', code, title, msgs.map((m) => primary(m, span))));
  }
  unexpected(): never {
    const c = this.src[this.pos];
    // VRL: E204 when the program ends where more was expected, E203 for a wrong token
    if (c === undefined) this.fail('unexpected end of program', [this.pos, this.pos], 204);
    const what = c === '\n' ? 'newline' : `"${c}"`;
    this.fail(`unexpected ${what}`, [this.pos, Math.min(this.pos + 1, this.src.length)]);
  }

  /** Skips blanks and comments, not newlines. */
  ws(): void {
    const s = this.src;
    for (;;) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\r') this.pos++;
      else if (c === '#') {
        while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else return;
    }
  }
  /** Skips blanks, comments and newlines. */
  nl(): void {
    for (;;) {
      this.ws();
      if (this.src[this.pos] === '\n') this.pos++;
      else return;
    }
  }
  peek(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }
  eat(s: string): boolean {
    if (this.src.startsWith(s, this.pos)) {
      this.pos += s.length;
      return true;
    }
    return false;
  }
  expect(s: string): void {
    if (!this.eat(s)) this.unexpected();
  }
  /** The identifier at pos (without consuming), or ''. */
  identAt(pos = this.pos): string {
    let e = pos;
    while (isIdentChar(this.src[e])) e++;
    return this.src.slice(pos, e);
  }
  keyword(word: string): boolean {
    return this.identAt() === word;
  }

  program(): Expr[] {
    this.nl();
    const exprs = this.exprs(undefined);
    return exprs;
  }

  /** Expressions separated by newlines or `;`, up to `close` (or end of input). */
  exprs(close: string | undefined): Expr[] {
    const out: Expr[] = [];
    for (;;) {
      this.skipSeparators();
      if (close === undefined ? this.pos >= this.src.length : this.peek(close)) break;
      if (this.pos >= this.src.length) this.unexpected();
      out.push(this.expr());
      this.ws();
      const c = this.src[this.pos];
      if (c === '\n' || c === ';') continue;
      if (close === undefined ? this.pos >= this.src.length : this.peek(close)) break;
      this.unexpected();
    }
    return out;
  }
  skipSeparators(): void {
    for (;;) {
      this.ws();
      const c = this.src[this.pos];
      if (c === '\n' || c === ';') this.pos++;
      else return;
    }
  }

  expr(): Expr {
    this.ws();
    const id = this.identAt();
    const start = this.pos;
    if (id === 'if' && !this.isCallAhead(id)) return this.ifExpr();
    if (id === 'abort' && !this.isCallAhead(id)) {
      this.pos += 5;
      this.ws();
      const c = this.src[this.pos];
      if (c === undefined || c === '\n' || c === ';' || c === '}' || c === ')' || c === ',' || c === ']') {
        return { k: 'abort', span: [start, start + 5] };
      }
      const message = this.expr();
      return { k: 'abort', message, span: [start, message.span[1]] };
    }
    if (id === 'return' && !this.isCallAhead(id)) {
      this.pos += 6;
      this.ws();
      const e = this.expr();
      return { k: 'return', expr: e, span: [start, e.span[1]] };
    }
    return this.assignmentOrArith();
  }
  isCallAhead(id: string): boolean {
    const c = this.src[this.pos + id.length];
    return c === '(' || (c === '!' && this.src[this.pos + id.length + 1] === '(');
  }

  assignmentOrArith(): Expr {
    const start = this.pos;
    let target: AssignTarget | undefined;
    try {
      target = this.target();
    } catch (e) {
      if (!(e instanceof ParseFail)) throw e;
      target = undefined;
    }
    if (target) {
      this.ws();
      let err: AssignTarget | undefined;
      const afterTarget = this.pos;
      if (this.src[this.pos] === ',') {
        this.pos++;
        this.ws();
        try {
          err = this.target();
        } catch (e) {
          if (!(e instanceof ParseFail)) throw e;
          err = undefined;
        }
        if (!err) this.pos = afterTarget;
        this.ws();
      }
      if (err !== undefined || this.src[this.pos] !== ',') {
        let merge = false;
        let isAssign = false;
        if (this.peek('|=')) {
          merge = true;
          isAssign = true;
          this.pos += 2;
        } else if (this.src[this.pos] === '=' && this.src[this.pos + 1] !== '=') {
          isAssign = true;
          this.pos += 1;
        }
        if (isAssign) {
          this.nl();
          const expr = this.expr();
          return { k: 'assign', target, ...(err ? { err } : {}), merge, expr, span: [start, expr.span[1]] };
        }
      }
    }
    this.pos = start;
    return this.arith(0);
  }

  /** An assignment target: `_`, `.path`, `%path`, `var.path`. */
  target(): AssignTarget {
    const start = this.pos;
    const c = this.src[this.pos];
    if (c === '.' || c === '%') {
      this.pos++;
      const path = this.pathAfterRoot();
      return { kind: c === '.' ? 'event' : 'meta', path, span: [start, this.pos] };
    }
    const id = this.identAt();
    if (!id || !isIdentStart(id[0]) || this.isCallAhead(id)) this.unexpected();
    if (id === '_') {
      this.pos += 1;
      return { kind: 'noop', span: [start, this.pos] };
    }
    if (KEYWORDS.has(id)) this.unexpected();
    this.pos += id.length;
    const path = this.postfixPath();
    if (RESERVED.has(id)) this.reserved([start, start + id.length]);
    return { kind: 'var', name: id, path, span: [start, this.pos] };
  }

  reserved(span: Span): never {
    throw new ParseFail(
      new Diagnostic('error', 205, 'reserved keyword', [
        primary('this identifier name is reserved for future use in the language', span),
        primary('use a different name instead', span),
      ]),
    );
  }

  arith(level: number): Expr {
    if (level >= LEVELS.length) return this.not();
    let lhs = this.arith(level + 1);
    const ops = LEVELS[level]!;
    for (;;) {
      this.ws();
      const op = this.matchOp(ops);
      if (!op) return lhs;
      const opStart = this.pos;
      this.pos += op.length;
      this.nl();
      const rhs = this.arith(level + 1);
      lhs = { k: 'op', op, lhs, rhs, opSpan: [opStart, opStart + op.length], span: [lhs.span[0], rhs.span[1]] };
    }
  }
  matchOp(ops: Opcode[]): Opcode | undefined {
    const s = this.src;
    const p = this.pos;
    const c = s[p];
    const n = s[p + 1];
    for (const op of ops) {
      if (!s.startsWith(op, p)) continue;
      if (op === '|' && (n === '|' || n === '=')) continue;
      if ((op === '<' || op === '>') && n === '=') continue;
      if (op === '-' && n === '>') continue;
      if (op === '%' && c === '%' && (n === undefined || n === '\n')) continue;
      return op;
    }
    return undefined;
  }

  not(): Expr {
    this.ws();
    if (this.src[this.pos] === '!' && this.src[this.pos + 1] !== '=') {
      const start = this.pos;
      this.pos++;
      const expr = this.not();
      return { k: 'not', expr, bangSpan: [start, start + 1], span: [start, expr.span[1]] };
    }
    return this.term();
  }

  term(): Expr {
    this.ws();
    const s = this.src;
    const start = this.pos;
    const c = s[this.pos];
    const n = s[this.pos + 1];
    if (c === undefined) this.unexpected();
    if (c === '"') return this.stringLiteral();
    if ((c === 's' || c === 'r' || c === 't') && n === "'") return this.quotedLiteral(c);
    if (isDigit(c) || (c === '-' && isDigit(n))) {
      const num = this.number();
      if (num) return num;
    }
    if (c === '[' || c === '{' || c === '(') return this.queryable(this.container());
    if (c === '.' || c === '%') {
      this.pos++;
      const path = this.pathAfterRoot();
      return { k: 'query', target: { kind: c === '.' ? 'event' : 'meta' }, path, span: [start, this.pos] };
    }
    const id = this.identAt();
    if (id && (isIdentStart(id[0]) || isDigit(id[0]))) {
      if (this.isCallAhead(id)) return this.queryable(this.call());
      this.pos += id.length;
      if (id === 'true' || id === 'false') return { k: 'lit', value: id === 'true', span: [start, this.pos] };
      if (id === 'null') return { k: 'lit', value: null, span: [start, this.pos] };
      if (KEYWORDS.has(id)) {
        this.pos = start;
        this.unexpected();
      }
      if (RESERVED.has(id)) this.reserved([start, this.pos]);
      const v: Expr = { k: 'var', name: id, span: [start, this.pos] };
      return this.queryable(v);
    }
    this.unexpected();
  }

  /** Adds a postfix path to a query target (`foo.bar`, `f().x`, `[1][0]`). */
  queryable(e: Expr): Expr {
    const path = this.postfixPath();
    if (path.length === 0) return e;
    const target: QueryTarget = e.k === 'var' ? { kind: 'var', name: e.name, span: e.span } : { kind: 'expr', expr: e };
    return { k: 'query', target, path, span: [e.span[0], this.pos] };
  }

  /** Path right after `.`/`%` (the root char is consumed): may be empty (root). */
  pathAfterRoot(): Segment[] {
    const s = this.src;
    const c = s[this.pos];
    const segs: Segment[] = [];
    if (c !== undefined && (isIdentChar(c) || c === '"' || c === '(')) segs.push(this.field());
    else if (c === '[') {
      /* index directly on the root */
    } else return segs;
    segs.push(...this.postfixPath());
    return segs;
  }

  postfixPath(): Segment[] {
    const s = this.src;
    const segs: Segment[] = [];
    for (;;) {
      const c = s[this.pos];
      if (c === '.') {
        const n = s[this.pos + 1];
        if (n !== undefined && (isIdentChar(n) || n === '"' || n === '(')) {
          this.pos++;
          segs.push(this.field());
          continue;
        }
        this.fail('unexpected end of query path', [this.pos, this.pos + 1], 203, [
          'unexpected end of query path',
          'expected one of: "identifier", "path field", "string literal", "abort", "return"',
        ]);
      }
      if (c === '[') {
        const save = this.pos;
        this.pos++;
        this.ws();
        let neg = false;
        if (s[this.pos] === '-') {
          neg = true;
          this.pos++;
        }
        const ds = this.pos;
        while (isDigit(s[this.pos])) this.pos++;
        if (ds === this.pos) {
          this.pos = save;
          this.unexpected();
        }
        const idx = Number(s.slice(ds, this.pos));
        this.ws();
        this.expect(']');
        segs.push({ index: neg ? -idx : idx });
        continue;
      }
      return segs;
    }
  }

  field(): Segment {
    const s = this.src;
    const c = s[this.pos];
    if (c === '"') {
      const lit = this.stringLiteral();
      if (lit.k !== 'lit' || typeof lit.value !== 'string') this.fail('unexpected template in path', lit.span);
      return { field: lit.value };
    }
    if (c === '(') {
      this.pos++;
      const names: string[] = [];
      for (;;) {
        this.ws();
        if (s[this.pos] === '"') {
          const lit = this.stringLiteral();
          names.push(String(lit.k === 'lit' ? lit.value : ''));
        } else {
          const id = this.identAt();
          if (!id) this.unexpected();
          this.pos += id.length;
          names.push(id);
        }
        this.ws();
        if (this.eat('|')) continue;
        this.expect(')');
        break;
      }
      return { coalesce: names };
    }
    const id = this.identAt();
    if (!id) this.unexpected();
    this.pos += id.length;
    return { field: id };
  }

  number(): Expr | undefined {
    const s = this.src;
    const start = this.pos;
    let p = this.pos;
    if (s[p] === '-') p++;
    while (isDigit(s[p]) || s[p] === '_') p++;
    if (s[start] !== '-' && isIdentChar(s[p]) && !isDigit(s[p])) return undefined; // `0tar` is an identifier
    let isFloat = false;
    if (s[p] === '.' && isDigit(s[p + 1])) {
      isFloat = true;
      p++;
      while (isDigit(s[p]) || s[p] === '_') p++;
    }
    if ((s[p] === 'e' || s[p] === 'E') && (isDigit(s[p + 1]) || ((s[p + 1] === '-' || s[p + 1] === '+') && isDigit(s[p + 2])))) {
      isFloat = true;
      p += 2;
      while (isDigit(s[p])) p++;
    }
    const text = s.slice(start, p).replace(/_/g, '');
    this.pos = p;
    const span: Span = [start, p];
    if (isFloat) return { k: 'lit', value: new Float(Number(text)), span };
    const big = BigInt(text);
    if (big > 9223372036854775807n || big < -9223372036854775808n) {
      this.fail('invalid numeric literal', span, 206, ['invalid numeric literal: number too large to fit in target type']);
    }
    return { k: 'lit', value: Number(text), span };
  }

  /** `"..."` with escapes; `{{ var }}` segments make it a template. */
  stringLiteral(): Expr {
    const s = this.src;
    const start = this.pos;
    this.pos++;
    const parts: TemplatePart[] = [];
    let cur = '';
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) this.fail('invalid string literal', [start, start + 1], 207, ['invalid string literal']);
      if (c === '"') {
        this.pos++;
        break;
      }
      if (c === '\\') {
        const e = s[this.pos + 1];
        switch (e) {
          case 'n':
            cur += '\n';
            break;
          case 't':
            cur += '\t';
            break;
          case 'r':
            cur += '\r';
            break;
          case '0':
            cur += '\0';
            break;
          case '"':
          case "'":
          case '\\':
            cur += e;
            break;
          case '{':
          case '}':
            cur += e;
            break;
          case '\n': {
            // line continuation: the newline and the next line's indentation vanish
            this.pos += 2;
            while (s[this.pos] === ' ' || s[this.pos] === '\t') this.pos++;
            continue;
          }
          case 'u': {
            const m = /^\{([0-9A-Fa-f]{1,6})\}/.exec(s.slice(this.pos + 2));
            if (!m) this.fail('invalid unicode escape sequence', [this.pos, this.pos + 2], 209, ['invalid unicode escape sequence']);
            cur += String.fromCodePoint(parseInt(m[1]!, 16));
            this.pos += 2 + m[0].length;
            continue;
          }
          default: {
            const ch = e ?? '';
            throw new ParseFail(
              new Diagnostic('error', 209, `invalid escape character: \\${ch}`, [primary(`invalid escape character: ${ch}`, [this.pos + 1, this.pos + 2])]),
            );
          }
        }
        this.pos += 2;
        continue;
      }
      if (c === '{' && s[this.pos + 1] === '{') {
        const segStart = this.pos;
        const close = s.indexOf('}}', this.pos + 2);
        if (close < 0) {
          cur += '{{';
          this.pos += 2;
          continue;
        }
        const inner = s.slice(this.pos + 2, close).trim();
        const m = /^([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_@]+|\[-?\d+\])*)$/.exec(inner);
        if (!m) this.fail('invalid template', [segStart, close + 2]);
        if (cur) parts.push(cur);
        cur = '';
        const path: Segment[] = [];
        for (const pm of m[2]!.matchAll(/\.([A-Za-z0-9_@]+)|\[(-?\d+)\]/g)) path.push(pm[1] !== undefined ? { field: pm[1] } : { index: Number(pm[2]) });
        parts.push({ name: m[1]!, path, span: [segStart, close + 2] });
        this.pos = close + 2;
        continue;
      }
      cur += c;
      this.pos++;
    }
    const span: Span = [start, this.pos];
    if (parts.length === 0) return { k: 'lit', value: cur, span };
    if (cur) parts.push(cur);
    return { k: 'template', parts, span };
  }

  quotedLiteral(kind: string): Expr {
    const s = this.src;
    const start = this.pos;
    this.pos += 2;
    let raw = '';
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) this.fail('invalid literal', kind === 'r' ? [start + 1, start + 2] : [start, start + 1], 208, ['invalid literal']);
      if (c === '\\' && s[this.pos + 1] !== undefined) {
        raw += c + s[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (c === "'") {
        this.pos++;
        break;
      }
      raw += c;
      this.pos++;
    }
    const span: Span = [start, this.pos];
    const text = raw.replace(/\\'/g, "'");
    if (kind === 's') return { k: 'lit', value: text, span };
    if (kind === 'r') {
      try {
        return { k: 'lit', value: compileRegex(text), span };
      } catch (e) {
        throw new ParseFail(
          new Diagnostic('error', 101, 'invalid regular expression', [primary(`regex parse error: ${(e as Error).message}`, span)], [
            'see documentation about regular expressions at https://vrl.dev/expressions/#regular-expression',
            codeNote(101),
          ]),
        );
      }
    }
    const ts = parseTimestampLiteral(text);
    if (!ts) {
      throw new ParseFail(
        new Diagnostic('error', 601, 'invalid timestamp', [primary('invalid timestamp format: input contains invalid characters', span)], [
          'see documentation about timestamps at https://vrl.dev/expressions/#timestamp',
        ]),
      );
    }
    return { k: 'lit', value: ts, span };
  }

  container(): Expr {
    const s = this.src;
    const start = this.pos;
    const c = s[this.pos];
    if (c === '[') {
      this.pos++;
      this.nl();
      const items: Expr[] = [];
      while (!this.eat(']')) {
        items.push(this.arith(0));
        this.nl();
        if (this.eat(',')) {
          this.nl();
          continue;
        }
        this.nl();
        this.expect(']');
        break;
      }
      return { k: 'array', items, span: [start, this.pos] };
    }
    if (c === '(') {
      this.pos++;
      this.nl();
      const exprs = this.exprs(')');
      this.expect(')');
      if (exprs.length === 0) this.fail('unexpected ")"', [this.pos - 1, this.pos]);
      const span: Span = [start, this.pos];
      if (exprs.length === 1) return { k: 'group', expr: exprs[0]!, span };
      return { k: 'group', expr: { k: 'block', exprs, span }, span };
    }
    // `{`: object when empty or when a string key and `:` follow, else a block
    this.pos++;
    this.nl();
    if (this.eat('}')) return { k: 'object', entries: [], span: [start, this.pos] };
    if (s[this.pos] === '"') {
      const save = this.pos;
      this.stringLiteral();
      this.ws();
      const isObject = s[this.pos] === ':';
      this.pos = save;
      if (isObject) return this.objectBody(start);
    }
    const exprs = this.exprs('}');
    this.expect('}');
    return { k: 'block', exprs, span: [start, this.pos] };
  }

  objectBody(start: number): Expr {
    const entries: [string, Expr][] = [];
    for (;;) {
      this.nl();
      if (this.eat('}')) break;
      if (this.src[this.pos] !== '"') this.unexpected();
      const key = this.stringLiteral();
      if (key.k !== 'lit') this.fail('unexpected template', key.span);
      this.ws();
      this.expect(':');
      this.nl();
      const value = this.arith(0);
      entries.push([String(key.value), value]);
      this.nl();
      if (this.eat(',')) continue;
      this.nl();
      this.expect('}');
      break;
    }
    return { k: 'object', entries, span: [start, this.pos] };
  }

  block(): Expr & { k: 'block' } {
    const start = this.pos;
    this.ws();
    if (this.src[this.pos] !== '{') this.unexpected();
    this.pos++;
    this.nl();
    const exprs = this.exprs('}');
    this.expect('}');
    if (exprs.length === 0) this.fail('unexpected "}"', [this.pos - 1, this.pos]);
    return { k: 'block', exprs, span: [start, this.pos] };
  }

  call(): Expr {
    const s = this.src;
    const start = this.pos;
    const name = this.identAt();
    this.pos += name.length;
    const nameSpan: Span = [start, this.pos];
    const abort = this.eat('!');
    this.expect('(');
    this.nl();
    const args: Arg[] = [];
    while (!this.eat(')')) {
      const id = this.identAt();
      let argName: string | undefined;
      let argNameSpan: Span | undefined;
      if (id && isIdentStart(id[0])) {
        let p = this.pos + id.length;
        while (s[p] === ' ' || s[p] === '\t') p++;
        if (s[p] === ':') {
          argName = id;
          argNameSpan = [this.pos, this.pos + id.length];
          this.pos = p + 1;
          this.nl();
        }
      }
      const expr = this.arith(0);
      args.push({ ...(argName !== undefined ? { name: argName, nameSpan: argNameSpan! } : {}), expr });
      this.nl();
      if (this.eat(',')) {
        this.nl();
        continue;
      }
      this.expect(')');
      break;
    }
    let end = this.pos;
    let closure: Closure | undefined;
    const save = this.pos;
    this.ws();
    if (this.eat('->')) {
      const cstart = this.pos;
      this.ws();
      const params: { name: string; span: Span }[] = [];
      if (!this.eat('||')) {
        this.expect('|');
        for (;;) {
          this.nl();
          if (this.eat('|')) break;
          const ps = this.pos;
          const id = this.identAt();
          if (!id) this.unexpected();
          this.pos += id.length;
          params.push({ name: id === '_' ? '' : id, span: [ps, this.pos] });
          this.nl();
          if (this.eat(',')) continue;
          this.expect('|');
          break;
        }
      }
      this.nl();
      const body = this.block();
      closure = { params, body, span: [cstart, body.span[1]] };
      end = this.pos;
    } else this.pos = save;
    return { k: 'call', name, nameSpan, abort, args, ...(closure ? { closure } : {}), span: [start, end] };
  }

  ifExpr(): Expr {
    const start = this.pos;
    this.pos += 2;
    this.ws();
    const pstart = this.pos;
    const cond = this.arith(0);
    const predicate = cond.k === 'group' && cond.expr.k === 'block' ? cond.expr.exprs : [cond];
    const predicateSpan: Span = [pstart, cond.span[1]];
    this.nl();
    const then = this.block();
    let end = this.pos;
    const save = this.pos;
    this.nl();
    let elseBlock: (Expr & { k: 'block' }) | undefined;
    if (this.keyword('else')) {
      this.pos += 4;
      this.nl();
      if (this.keyword('if')) {
        const nested = this.ifExpr();
        elseBlock = { k: 'block', exprs: [nested], span: nested.span };
      } else elseBlock = this.block();
      end = this.pos;
    } else this.pos = save;
    return { k: 'if', predicate, predicateSpan, then, ...(elseBlock ? { else: elseBlock } : {}), span: [start, end] };
  }
}

/** Parses the text of a `t'...'` literal (RFC 3339, offsets allowed). */
export function parseTimestampLiteral(text: string): Timestamp | undefined {
  return Timestamp.parse(text);
}

