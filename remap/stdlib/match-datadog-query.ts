/** `match_datadog_query`: VRL's binding of the Datadog search syntax (lib/search-query.ts). */
import type { Value } from '../../lib/value.js';
import { compileDatadogQuery } from '../../lib/search-query.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';

/** `match_datadog_query`: the search syntax of lib/search-query.ts over any object. */
export const datadogQueryFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'match_datadog_query',
    description: 'Whether an object matches a Datadog search query.',
    params: [
      { name: 'value', kind: K.OBJECT, required: true },
      { name: 'query', kind: K.BYTES, required: true },
    ],
    returns: K.K_BOOLEAN,
    prepare: (args) => {
      const q = args[1]!;
      if (!q.isConstant || typeof q.constant !== 'string') throw new FunctionCompileError('expected static expression', 'query');
      try {
        return compileDatadogQuery(q.constant);
      } catch {
        throw new FunctionCompileError('failed to build matcher', 'query', JSON.stringify(q.constant));
      }
    },
    call: ([v], env) => (env.prepared as (x: Value) => boolean)(v!),
  }),
];
