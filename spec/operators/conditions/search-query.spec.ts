import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventMetadata, MetricEvent, logEvent } from '../../../lib/event.js';
import { ConditionError, compileCondition } from '../../../operators/conditions/index.js';
import { compileSearchQuery } from '../../../operators/conditions/search-query.js';
import { Float, type ObjectValue, Timestamp, isObject } from '../../../lib/value.js';
import { parseJsonValue } from '../../remap/harness.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Reference checks: each query matches the first event and not the second. */
const checks = JSON.parse(readFileSync(join(here, 'search-query-cases.json'), 'utf8')) as { query: string; match: string; nomatch: string }[];

const EVENT: ObjectValue = {
  message: 'GET /api/users failed: connection timeout after 30s',
  host: 'web-01',
  service: 'api',
  status: 'error',
  source: 'nginx',
  trace_id: 'abc123',
  timestamp: Timestamp.parse('2024-05-01T10:00:00Z')!,
  tags: ['env:prod', 'team:core', 'canary', 'version:1.10'],
  http: { code: 503, method: 'GET', latency: new Float(1.5), url: 'https://example.com/api?q=1' },
  user: { name: 'Ada Lovelace', id: '0042', admin: true },
  custom: { title: 'Nightly report' },
  count: 7,
  empty: '',
  nil: null,
};

const matches = (q: string, fields: ObjectValue = EVENT): boolean => compileSearchQuery(q, 'condition.source')(logEvent(fields));

describe('operators/conditions/search-query', () => {
  const cases: [string, boolean, ObjectValue?][] = [
    // free text against the default fields (word regex, case-sensitive)
    ['timeout', true],
    ['time', false],
    ['Timeout', false],
    ['connection timeout', true],
    ['timeout connection', false],
    ['"connection timeout"', true],
    ['"timeout after 30s"', true],
    ['conn*', true],
    ['*out', true],
    ['c*n t*t', true],
    ['Nightly', true],
    ['report', true],
    ['zzz', false],
    ['panic', true, { custom: { error: { stack: 'at main: panic' } } }],
    ['oops', true, { _default_: 'oops happened' }],
    ['*', true],
    ['*:*', true],
    ['', true],
    // reserved fields: equality
    ['status:error', true],
    ['status:err', false],
    ['status:err*', true],
    ['status:e*r', true],
    ['status:*rr*', true],
    ['host:web-01', true],
    ['host:"web-01"', true],
    ['service:api', true],
    ['service:API', false],
    ['trace_id:abc123', true],
    ['status:200', false, { status: 200 }],
    ['source:nginx', true],
    ['source:nginx', true, { ddsource: 'nginx' }],
    ['source:ngi*', true, { ddsource: 'nginx' }],
    ['message:timeout', true],
    ['message:time', false],
    ['custom.title:Nightly', true],
    ['_default_:report', true],
    ['_default_:*', true, { other: 1 }],
    ['_default_:(report OR zzz)', true],
    ['timeout connection OR zzz', true],
    ['timeout connection', false],
    ['connection conn*', true],
    ['timeout - panic', true],
    ['timeout - timeout', false],
    ['message:GET*', true],
    // attributes
    ['@http.method:GET', true],
    ['@http.code:503', true],
    ['@http.code:50', false],
    ['@http.latency:1.5', true],
    ['@user.admin:true', true],
    ['@user.name:"Ada Lovelace"', true],
    ['@user.name:Ada*', true],
    ['@user.name:*Love*', true],
    ['@user.name:ada*', false],
    ['@http.code:5*', false],
    ['@http.code:>=500', true],
    ['@http.code:>503', false],
    ['@http.code:<=503', true],
    ['@http.code:<1000', true],
    ['@http.latency:>1', true],
    ['@http.code:[500 TO 599]', true],
    ['@http.code:[503 TO 503]', true],
    ['@http.code:{503 TO 600}', false],
    ['@http.code:{500 TO *}', true],
    ['@http.code:[* TO 502]', false],
    ['@user.id:>0041', false],
    ['@user.id:[0040 TO 0050]', false],
    ['@user.id:>000', true],
    ['@http.code:>abc', false],
    ['@user.name:[A TO B]', true],
    ['@user.id:>abc', false],
    ['@user.admin:>0', false],
    ['@http.url:https\\://example.com/api?q=1', true],
    // an unescaped `:` inside a value is a syntax error (see the invalid list)
    ['@http.url:https\\://example.com/*', true],
    ['@nope:x', false],
    ['@http.code:*', false],
    ['@http.method:*', true],
    ['env:*', true],
    ['region:*', false],
    ['@http.code:[* TO *]', true],
    ['@nope:*', false],
    // tags
    ['env:prod', true],
    ['env:dev', false],
    ['env:pr*', true],
    ['env:*od', true],
    ['team:c?re', false],
    ['version:>1.9', false],
    ['version:>1.09', true],
    ['tags:canary', true],
    ['tags:"env:prod"', true],
    ['tags:nope', false],
    ['tags:prod', true, { ddtags: ['prod'] }],
    ['team:>core', false],
    ['team:>=core', true],
    ['env:prod', true, { ddtags: ['env:prod'] }],
    ['_exists_:env', true],
    ['_exists_:canary', true],
    ['_missing_:region', true],
    ['_exists_:@http.code', true],
    ['_exists_:@nope', false],
    ['_missing_:@nope', true],
    ['_exists_:host', true],
    ['_missing_:host', false],
    ['_exists_:nil', false],
    ['_exists_:@nil', true],
    // booleans and precedence
    ['status:error AND service:api', true],
    ['status:error && service:web', false],
    ['status:error service:api', true],
    ['status:ok OR service:api', true],
    ['status:ok || service:web', false],
    ['status:ok service:api OR env:prod', true],
    ['status:error OR service:web env:dev', true],
    ['status:ok OR service:web env:prod', false],
    ['(status:ok OR service:api) env:prod', true],
    ['(status:ok OR service:api) env:dev', false],
    ['status:ok OR (service:api AND env:dev)', false],
    ['NOT status:ok', true],
    ['NOT status:error', false],
    ['-status:error', true, { status: 'ok' }],
    ['-service:api (timeout OR refused)', false],
    ['-service:web (timeout OR refused)', true],
    ['NOT (status:ok OR env:dev)', true],
    ['NOT NOT status:error', true],
    ['-@nope:x', true],
    ['+status:error', true],
    ['status:(error OR warn)', true],
    ['status:(warn OR info)', false],
    ['@http.method:(GET OR POST) @http.code:>=500', true],
    ['NOT status:error OR env:prod', true],
    ['status:error AND NOT env:prod', false],
    ['timeout AND -env:dev', true],
    ['\\-dash', true, { message: 'x-dash here' }],
    ['@count:7', true],
    ['@count:[1 TO 10] AND @count:{7 TO 10}', false],
    // reserved fields compare strings only: a timestamp value never compares (as in Vector)
    ['timestamp:>2024-01-01', false],
    ['timestamp:>2024-01-01', true, { timestamp: '2024-05-01T10:00:00Z' }],
    // a leading or doubled keyword is read as a glob term on the default fields
    ['OR status:error', false],
    ['OR status:error', true, { message: 'this OR that', status: 'error' }],
    ['status:error OR OR env:prod', true],
    ['status:ok OR OR env:prod', false],
    // `@` alone names the whole event, which is never a scalar
    ['@:x', false],
    // conditions also read `ddsource`, and compare a tag only with elements of that tag
    ['_exists_:source', true, { ddsource: 'nginx' }],
    ['env:>a', false, { tags: ['team:zzz'] }],
  ];
  for (const [q, want, fields] of cases) {
    it(`${JSON.stringify(q)} ${want ? 'matches' : 'does not match'}${fields ? ` ${JSON.stringify(fields)}` : ''}`, () => {
      expect(matches(q, fields)).to.equal(want);
    });
  }

  it(`passes ${checks.length} reference checks (one matching, one non-matching event each)`, () => {
    const failures: string[] = [];
    const fieldsOf = (text: string): ObjectValue => {
      const v = parseJsonValue(text);
      if (!isObject(v)) throw new Error(`not an object: ${text}`);
      return v;
    };
    for (const c of checks) {
      const p = compileSearchQuery(c.query, 'condition.source');
      if (!p(logEvent(fieldsOf(c.match)))) failures.push(`${c.query} should match ${c.match}`);
      if (p(logEvent(fieldsOf(c.nomatch)))) failures.push(`${c.query} should not match ${c.nomatch}`);
    }
    expect(failures).to.deep.equal([]);
  });

  it('never matches metric events', () => {
    const m = new MetricEvent('m', 'absolute', { type: 'gauge', value: 1 }, new EventMetadata('s', 't'));
    expect(compileSearchQuery('*', 'x')(m)).to.equal(false);
  });
  it('is reachable through compileCondition', () => {
    const p = compileCondition({ type: 'search_query', source: 'env:prod' }, 'exclude');
    expect(p(logEvent(EVENT))).to.equal(true);
  });

  const invalid: string[] = [
    'status:',
    '(status:error',
    'status:error)',
    'status:error AND',
    '"unterminated',
    '@http.code:[1 TO 5}',
    '@http.code:[1 5]',
    '@http.code:[1 TO 5',
    '!foo',
    '~foo',
    'foo\\',
    '@http.url:https://example.com/*',
    ' status:error',
    'NOT',
    '@http.code:>',
    '*:x',
  ];
  for (const q of invalid) {
    it(`rejects ${JSON.stringify(q)} with ConditionError naming the option`, () => {
      let err: unknown;
      try {
        compileSearchQuery(q, 'transforms.t.exclude.source');
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(ConditionError);
      expect((err as ConditionError).optionPath).to.equal('transforms.t.exclude.source');
      expect((err as ConditionError).message).to.contain('invalid search query');
    });
  }
});
