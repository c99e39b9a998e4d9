/**
 * set_semantic_meaning: names the field that carries a meaning (`message`, `timestamp`, …). Vector
 * uses it for schema-aware sinks; weir tracks no schemas, so it is checked when the program
 * compiles and does nothing when it runs, as in Vector.
 */
import type { Value } from '../../lib/value.js';
import { type ArgInfo, type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';

const pathText = (path: readonly K.KSeg[]): string =>
  path.map((s, i) => (typeof s === 'number' ? `[${s}]` : `${i === 0 ? '' : '.'}${typeof s === 'string' ? s : s.join('|')}`)).join('');

function check(args: readonly ArgInfo[]): undefined {
  const [target, meaning] = args as [ArgInfo, ArgInfo];
  const root = target.root?.kind;
  if (root !== 'event' && root !== 'meta') {
    const hint = target.root?.kind === 'var' ? ` (maybe you meant ".${target.root.name}" or "%${target.root.name}"?)` : '';
    throw new FunctionCompileError(`semantic meaning is not valid for local variables${hint}`, 'target');
  }
  if (!meaning.isConstant || typeof meaning.constant !== 'string') throw new FunctionCompileError('expected a string literal', 'meaning');
  const path = target.path ?? [];
  const known = K.kindAt(target.rootKind ?? K.ANY, path);
  if ((known.bits & K.ANY_VALUE) === 0)
    throw new FunctionCompileError(`semantic meaning defined for non-existing field: field "${root === 'meta' ? '%' : '.'}${pathText(path)}" is not known to exist for all events`, 'target');
  return undefined;
}

/** The functions of this file, for the stdlib list. */
export const semanticMeaningFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'set_semantic_meaning',
    description: 'Assigns a semantic meaning to an event field; checked at compile time, no effect at run time.',
    params: [
      { name: 'target', kind: K.ALL, required: true, query: true },
      { name: 'meaning', kind: K.BYTES, required: true },
    ],
    returns: K.K_NULL,
    impure: true,
    prepare: check,
    call: () => null as Value,
    examples: [{ source: '.foo = 1; set_semantic_meaning(.foo, "bar")', result: 'null' }],
  }),
];
