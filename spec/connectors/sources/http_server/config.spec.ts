import { expect } from 'chai';
import { catalog } from '../../../../connectors/index.js';
import { httpServerSource } from '../../../../connectors/sources/http_server/index.js';
import { compileParamPattern } from '../../../../connectors/sources/http_server/params.js';
import { buildConfig } from '../../../../lib/config/load.js';

/** `component.path: message` of every problem of a config with this one source. */
function problems(source: Record<string, unknown>): string[] {
  const data = { sources: { in: source }, sinks: { out: { type: 'blackhole', inputs: ['in'] } } };
  return buildConfig([{ file: undefined, data }], catalog).problems.map((p) => `${p.component}.${p.path}: ${p.message}`);
}
const base = { type: 'http_server', address: '127.0.0.1:8080' };

describe('http_server source: configuration', () => {
  it('is found as http_server and as Vector\'s older http among sources, while http stays the sink', () => {
    expect(catalog.find('source', 'http')).to.equal(httpServerSource);
    expect(catalog.find('source', 'http_server')).to.equal(httpServerSource);
    expect(catalog.find('sink', 'http')?.type).to.equal('http');
    expect(problems({ ...base, type: 'http' })).to.deep.equal([]);
  });

  it('names the option and what is allowed', () => {
    const all = [
      ...problems({ ...base, address: 'nowhere' }),
      ...problems({ ...base, method: 'FETCH' }),
      ...problems({ ...base, headers: ['X-[abc*'] }),
      ...problems({ ...base, keepalive: { max_connection_age_jitter_factor: 2 } }),
      ...problems({ ...base, encoding: 'ndjson', decoding: { codec: 'json' } }),
      ...problems({ ...base, auth: { strategy: 'custom', source: 'true' } }),
      ...problems({ ...base, bogus: 1 }),
    ].join('\n');
    expect(all).to.match(/in\.address: /);
    expect(all).to.match(/in\.method: .*"POST"/);
    expect(all).to.match(/in\.headers\[0\]: invalid pattern "X-\[abc\*": unclosed "\["/);
    expect(all).to.match(/in\.keepalive\.max_connection_age_jitter_factor: /);
    expect(all).to.match(/in\.encoding: encoding is deprecated and cannot be combined with framing or decoding/);
    expect(all).to.match(/in\.auth\.(strategy|source): /);
    expect(all).to.match(/in\.bogus: unknown option/);
  });

  it('emits what its codec makes: logs, or any event for the native codecs', () => {
    const out = (c: Record<string, unknown>) => httpServerSource.outputs!(buildConfig([{ file: undefined, data: { sources: { in: { ...base, ...c } }, sinks: { out: { type: 'blackhole', inputs: ['in'] } } } }], catalog).config!.components.get('in')!.options as never)[0]!.type;
    expect(out({})).to.equal('log');
    expect(out({ decoding: { codec: 'json' } })).to.equal('log');
    expect(out({ decoding: { codec: 'native_json' } })).to.equal('any');
  });

  it('compiles wildcards case-insensitively; names without * are exact', () => {
    const g = compileParamPattern('X-*-id?') as { glob: RegExp };
    expect(g.glob.test('x-request-id1')).to.equal(true);
    expect(g.glob.test('x-request-id')).to.equal(false);
    expect(compileParamPattern('a?b')).to.deep.equal({ exact: 'a?b' });
    expect((compileParamPattern('[!a]*') as { glob: RegExp }).glob.test('abc')).to.equal(false);
  });
});

