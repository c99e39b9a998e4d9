/**
 * The documented examples of every built-in function (function-examples.json: title, source,
 * expected result or error, optional input event) run as conformance cases.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionNames } from '../../remap/index.js';
import { parseJsonValue, runCase } from './harness.js';

interface Example {
  readonly function: string;
  readonly title: string;
  readonly source: string;
  readonly ok: boolean;
  readonly result: string;
  readonly skip: boolean;
  readonly nondeterministic: boolean;
  readonly input?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const examples = JSON.parse(readFileSync(join(here, 'function-examples.json'), 'utf8')) as Example[];
const known = new Set(
  readFileSync(join(here, 'function-examples-known-failures.txt'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#')),
);

describe('remap function examples', () => {
  const implemented = new Set(functionNames());
  const byFunction = new Map<string, Example[]>();
  for (const e of examples) if (implemented.has(e.function)) byFunction.set(e.function, [...(byFunction.get(e.function) ?? []), e]);

  it('covers every implemented function that has documented examples', () => {
    expect(byFunction.size).to.be.greaterThan(100);
  });

  for (const [fn, list] of byFunction) {
    it(fn, () => {
      const failures: string[] = [];
      for (const e of list) {
        const c = {
          source: e.source,
          object: e.input ? parseJsonValue(e.input) : {},
          result: e.result.trim(),
          approx: false,
          skip: e.skip,
          checkDiagnostics: false,
          readOnly: [],
        };
        const o = runCase(c);
        // examples with random or time-based output only need to run without error
        const pass = o.pass || (e.nondeterministic && !o.got.startsWith('error') && !o.got.startsWith('function call error'));
        if (!pass && !known.has(`${fn}: ${e.title}`)) failures.push(`${e.title}\n  source: ${e.source}\n  got: ${o.got}\n  want: ${e.result}`);
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
    });
  }
});
