/** Syntax tree of a remap program; every node carries its source span. */
import type { Value } from '../lib/value.js';
import type { Span } from './diagnostic.js';

/** A path segment: field name, array index, or coalesced fields `(a | b)`. */
export type Segment = { readonly field: string } | { readonly index: number } | { readonly coalesce: readonly string[] };

/** What a path query starts from: the event, its metadata, a variable or any expression. */
export type QueryTarget =
  | { readonly kind: 'event' }
  | { readonly kind: 'meta' }
  | { readonly kind: 'var'; readonly name: string; readonly span: Span }
  | { readonly kind: 'expr'; readonly expr: Expr };

/** Left side of an assignment; `_` discards the value. */
export type AssignTarget =
  | { readonly kind: 'noop'; readonly span: Span }
  | { readonly kind: 'event'; readonly path: readonly Segment[]; readonly span: Span }
  | { readonly kind: 'meta'; readonly path: readonly Segment[]; readonly span: Span }
  | { readonly kind: 'var'; readonly name: string; readonly path: readonly Segment[]; readonly span: Span };

/** One call argument, positional or named. */
export interface Arg {
  readonly name?: string;
  readonly nameSpan?: Span;
  readonly expr: Expr;
}

/** A call's trailing closure `-> |a, b| { ... }`; `_` parameters have an empty name. */
export interface Closure {
  readonly params: readonly { readonly name: string; readonly span: Span }[];
  readonly body: Expr & { k: 'block' };
  readonly span: Span;
}

/** Literal text or a `{{ variable }}` segment of a string template. */
export type TemplatePart = string | { readonly name: string; readonly path: readonly Segment[]; readonly span: Span };

/** Binary operators, lowest precedence first in the parser's table. */
export type Opcode = '??' | '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '|' | '+' | '-' | '*' | '/' | '%';

/** An expression node; `span` is the [start, end) character range in the program. */
export type Expr =
  | { readonly k: 'lit'; readonly value: Value; readonly span: Span }
  | { readonly k: 'template'; readonly parts: readonly TemplatePart[]; readonly span: Span }
  | { readonly k: 'array'; readonly items: readonly Expr[]; readonly span: Span }
  | { readonly k: 'object'; readonly entries: readonly (readonly [string, Expr])[]; readonly span: Span }
  | { readonly k: 'block'; readonly exprs: readonly Expr[]; readonly span: Span }
  | { readonly k: 'group'; readonly expr: Expr; readonly span: Span }
  | {
      readonly k: 'if';
      readonly predicate: readonly Expr[];
      readonly predicateSpan: Span;
      readonly then: Expr & { k: 'block' };
      readonly else?: Expr & { k: 'block' };
      readonly span: Span;
    }
  | { readonly k: 'op'; readonly op: Opcode; readonly lhs: Expr; readonly rhs: Expr; readonly opSpan: Span; readonly span: Span }
  | { readonly k: 'not'; readonly expr: Expr; readonly bangSpan: Span; readonly span: Span }
  | {
      readonly k: 'assign';
      readonly target: AssignTarget;
      readonly err?: AssignTarget;
      readonly merge: boolean;
      readonly expr: Expr;
      readonly span: Span;
    }
  | { readonly k: 'query'; readonly target: QueryTarget; readonly path: readonly Segment[]; readonly span: Span }
  | { readonly k: 'var'; readonly name: string; readonly span: Span }
  | {
      readonly k: 'call';
      readonly name: string;
      readonly nameSpan: Span;
      readonly abort: boolean;
      readonly args: readonly Arg[];
      readonly closure?: Closure;
      readonly span: Span;
    }
  | { readonly k: 'abort'; readonly message?: Expr; readonly span: Span }
  | { readonly k: 'return'; readonly expr: Expr; readonly span: Span };
