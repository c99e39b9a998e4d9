/**
 * Unused-expression warnings (E900), as VRL reports them: literals, objects and side-effect-free
 * function calls whose result is discarded, and variables assigned but never read.
 */
import type { Expr } from './ast.js';
import { Diagnostic, type Span, primary } from './diagnostic.js';

// VRL's list, plus the secret writers, whose effect is on the event metadata (VRL warns on them)
const SIDE_EFFECT_FUNCTIONS = new Set(['del', 'log', 'assert', 'assert_eq', 'set_semantic_meaning', 'set_secret', 'remove_secret']);

interface IdentState {
  span: Span;
  pending: boolean;
  inClosure: boolean;
}

class Visitor {
  level = 0;
  readonly expecting = new Map<number, boolean>();
  readonly withinBlock = new Map<number, boolean>();
  readonly idents = new Map<string, IdentState>();
  inClosure = false;
  readonly warnings: Diagnostic[] = [];

  constructor(readonly src: string) {}

  isUnused(): boolean {
    return this.expecting.get(this.level) !== true;
  }
  isWithinBlock(): boolean {
    return this.withinBlock.get(this.level) === true;
  }
  warn(message: string, span: Span): void {
    this.warnings.push(new Diagnostic('warning', 900, message, [primary('help: use the result of this expression or remove it', span)], ['this expression has no side-effects']));
  }
  pending(name: string, span: Span): void {
    if (name === '' || name.startsWith('_')) return;
    if (!this.idents.has(name)) this.idents.set(name, { span, pending: true, inClosure: this.inClosure });
  }
  used(name: string): void {
    if (name === '' || name.startsWith('_')) return;
    const s = this.idents.get(name);
    if (!s) return;
    s.pending = false;
    if (this.inClosure) s.inClosure = true;
  }
  scoped(f: () => void): void {
    this.level++;
    this.expecting.set(this.level, true);
    f();
    this.expecting.set(this.level, false);
    this.level--;
  }
  text(span: Span): string {
    return this.src.slice(span[0], span[1]);
  }

  node(e: Expr): void {
    switch (e.k) {
      case 'lit':
        if (this.isUnused()) this.warn(`unused literal \`${this.text(e.span)}\``, e.span);
        return;
      case 'template':
        for (const p of e.parts) if (typeof p !== 'string') this.used(p.name);
        if (this.isUnused()) this.warn(`unused literal \`${this.text(e.span)}\``, e.span);
        return;
      case 'array':
        for (const x of e.items) this.node(x);
        return;
      case 'object':
        if (this.isUnused()) this.warn(`unused object \`${this.text(e.span)}\``, e.span);
        for (const [, x] of e.entries) this.scoped(() => this.node(x));
        return;
      case 'block':
        this.block(e.exprs);
        return;
      case 'group':
        if (e.expr.k === 'block') for (const x of e.expr.exprs) this.node(x);
        else this.node(e.expr);
        return;
      case 'if':
        this.scoped(() => {
          for (const p of e.predicate) this.node(p);
          this.scoped(() => this.block(e.then.exprs));
          if (e.else) this.scoped(() => this.block(e.else!.exprs));
        });
        return;
      case 'op':
        this.node(e.lhs);
        this.scoped(() => this.node(e.rhs));
        return;
      case 'not':
        this.node(e.expr);
        return;
      case 'assign': {
        this.level++;
        const level = this.level;
        this.expecting.set(level, true);
        for (const t of [e.target, e.err]) {
          if (!t || t.kind === 'noop' || t.kind === 'event' || t.kind === 'meta') continue;
          if (t.path.length > 0) this.pending(t.name, [t.span[0], t.span[0] + t.name.length]);
          else if (e.merge) this.used(t.name);
          else this.pending(t.name, t.span);
        }
        this.node(e.expr);
        this.expecting.set(level, false);
        this.level--;
        return;
      }
      case 'query': {
        const t = e.target;
        if (t.kind === 'var') {
          if (!this.isUnused()) this.used(t.name);
        } else if (t.kind === 'expr' && t.expr.k === 'call') this.call(t.expr, t.expr.span);
        return;
      }
      case 'var':
        this.used(e.name);
        return;
      case 'call':
        this.call(e, e.span);
        return;
      case 'abort':
        return;
      case 'return': {
        this.level++;
        const level = this.level;
        this.expecting.set(level, true);
        this.node(e.expr);
        this.expecting.set(level, false);
        this.level--;
        return;
      }
    }
  }

  block(exprs: readonly Expr[]): void {
    if (exprs.length === 0) return;
    this.level++;
    this.withinBlock.set(this.level, true);
    exprs.forEach((x, i) => {
      if (i === exprs.length - 1) {
        this.withinBlock.set(this.level, false);
        this.level--;
      }
      this.node(x);
    });
  }

  call(e: Expr & { k: 'call' }, span: Span): void {
    for (const a of e.args) {
      this.level++;
      this.expecting.set(this.level, true);
      this.node(a.expr);
      this.expecting.set(this.level, false);
      this.level--;
    }
    const guard = !e.abort && this.isWithinBlock();
    if (guard) this.expecting.set(this.level, true);
    if (!SIDE_EFFECT_FUNCTIONS.has(e.name)) {
      if (e.closure) {
        this.inClosure = true;
        for (const p of e.closure.params) this.pending(p.name, p.span);
        this.expecting.set(this.level, true);
        this.block(e.closure.body.exprs);
        this.expecting.set(this.level, false);
      } else if (this.isUnused()) {
        this.warn(`unused result for function call \`${this.text(e.span)}\``, span);
      }
      this.inClosure = false;
    }
    if (guard) this.expecting.set(this.level, false);
  }
}

/** Warnings for the root expressions of a program (sorted variable warnings last, as VRL). */
export function unusedWarnings(src: string, roots: readonly Expr[]): Diagnostic[] {
  const v = new Visitor(src);
  roots.forEach((e, i) => {
    const last = i === roots.length - 1;
    if (last) {
      v.level++;
      v.expecting.set(v.level, true);
    }
    v.node(e);
    if (last) {
      v.level--;
      v.expecting.set(v.level, false);
    }
  });
  for (const name of [...v.idents.keys()].sort()) {
    const s = v.idents.get(name)!;
    if (s.pending && !s.inClosure) v.warn(`unused variable \`${name}\``, s.span);
  }
  return v.warnings;
}
