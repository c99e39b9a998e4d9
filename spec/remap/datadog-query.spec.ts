/** match_datadog_query: the search syntax cases (value, query, expected match) in datadog-query-cases.json. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatadogQueryError, compileDatadogQuery } from '../../lib/search-query.js';
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

  it('differs from the event target only in field lookups', () => {
    const both = (q: string, v: string): [boolean, boolean] => {
      const value = parseJsonValue(v);
      return [compileDatadogQuery(q)(value), compileDatadogQuery(q, 'event')(value)];
    };
    expect(both('status:200', '{"status": 200}')).to.deep.equal([true, false]);
    expect(both('source:nginx', '{"ddsource": "nginx"}')).to.deep.equal([false, true]);
    expect(both('env:prod', '{"ddtags": ["env:prod"]}')).to.deep.equal([false, true]);
    expect(both('@code:5*', '{"code": 503}')).to.deep.equal([true, false]);
    expect(both('env:>a', '{"tags": ["team:zzz"]}')).to.deep.equal([true, false]);
    expect(both('_exists_:tags', '{"tags": ["tags"]}')).to.deep.equal([false, true]);
  });

  it('rejects a query that does not parse', () => {
    for (const q of ['status:', ' a', 'a AND', '(a', '@a:[1 TO 2}', '*:x', 'NOT']) expect(() => compileDatadogQuery(q), q).to.throw(DatadogQueryError);
  });

  it('rejects an attribute that is not a valid path', () => {
    expect(() => compileDatadogQuery('@a%:1')).to.throw(/failed to build matcher/);
  });
});
