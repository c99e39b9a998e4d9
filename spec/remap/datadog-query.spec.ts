/** match_datadog_query: the search syntax cases (value, query, expected match) in datadog-query-cases.json. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileDatadogQuery } from '../../remap/stdlib/datadog-query.js';
import { parseJsonValue } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const cases = JSON.parse(readFileSync(join(here, 'datadog-query-cases.json'), 'utf8')) as { value: string; query: string; want: boolean }[];

describe('remap match_datadog_query syntax', () => {
  it(`matches ${cases.length} reference cases`, () => {
    const failures: string[] = [];
    for (const c of cases) {
      const got = compileDatadogQuery(c.query)(parseJsonValue(c.value));
      if (got !== c.want) failures.push(`${c.query} on ${c.value}: got ${got}`);
    }
    expect(failures).to.deep.equal([]);
  });

  it('rejects an attribute that is not a valid path', () => {
    expect(() => compileDatadogQuery('@a%:1')).to.throw(/failed to build matcher/);
  });
});
