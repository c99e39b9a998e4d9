import { expect } from 'chai';
import { of } from 'rxjs';
import { inflateSync } from 'node:zlib';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { fast, httpConfig, makeEvents, runSink } from './harness.js';

/** The http sink's Vector options: retry_strategy, framing and zlib compression, against a real server. */
describe('connectors/sinks/http: retry_strategy, framing, zlib', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());

  /** Answers `status` twice, then 200; returns how many requests the sink made and how it ended. */
  async function attempts(strategy: Record<string, unknown> | undefined, status: number): Promise<{ requests: number; status: string }> {
    let n = 0;
    server.reply = () => (n++ < 2 ? status : 200);
    const before = server.requests.length;
    const config = fast(httpConfig(server.url, strategy ? { retry_strategy: strategy } : {}), { retry_attempts: 5 });
    const ds = await runSink(config, of(makeEvents(1)));
    return { requests: server.requests.length - before, status: ds[0]!.status };
  }

  it('default: 503 is retried, 408 is not (weir\'s status rule)', async () => {
    expect(await attempts(undefined, 503)).to.deep.equal({ requests: 3, status: 'delivered' });
    expect(await attempts({ type: 'default' }, 408)).to.deep.equal({ requests: 1, status: 'rejected' });
  });

  it('all: every answer that is not 2xx is retried, 404 included', async () => {
    expect(await attempts({ type: 'all' }, 404)).to.deep.equal({ requests: 3, status: 'delivered' });
  });

  it('custom: exactly the listed statuses are retried', async () => {
    expect(await attempts({ type: 'custom', status_codes: [408] }, 408)).to.deep.equal({ requests: 3, status: 'delivered' });
    expect(await attempts({ type: 'custom', status_codes: [408] }, 503)).to.deep.equal({ requests: 1, status: 'errored' });
  });

  it('none: nothing is retried, not even a 503 or a reset connection', async () => {
    expect(await attempts({ type: 'none' }, 503)).to.deep.equal({ requests: 1, status: 'errored' });
    let n = 0;
    server.reply = () => (n++ < 2 ? 'reset' : 200);
    const ds = await runSink(fast(httpConfig(server.url, { retry_strategy: { type: 'none' } }), { retry_attempts: 5 }), of(makeEvents(1)));
    expect(ds.map((d) => d.status)).to.deep.equal(['errored']);
    expect(n).to.equal(1);
  });

  it('framing newline_delimited with json: one event per line, no newline after the last (Vector\'s body)', async () => {
    await runSink(fast(httpConfig(server.url, { framing: { method: 'newline_delimited' } })), of(makeEvents(3)));
    const r = server.requests[0]!;
    expect(r.body).to.equal('{"message":"m0","i":0}\n{"message":"m1","i":1}\n{"message":"m2","i":2}');
    expect(r.headers['content-type']).to.equal('application/x-ndjson');
  });

  it('framing character_delimited "," with json: a JSON array inside payload_prefix and payload_suffix', async () => {
    const config = httpConfig(server.url, { framing: { method: 'character_delimited', character_delimited: { delimiter: ',' } }, payload_prefix: '{"data":', payload_suffix: '}' });
    await runSink(fast(config), of(makeEvents(2)));
    const r = server.requests[0]!;
    expect(JSON.parse(r.body)).to.deep.equal({ data: [{ message: 'm0', i: 0 }, { message: 'm1', i: 1 }] });
    expect(r.headers['content-type']).to.equal('application/json');
  });

  it('framing with text: each message followed by its delimiter', async () => {
    await runSink(fast(httpConfig(server.url, { encoding: { codec: 'text' }, framing: { method: 'character_delimited', character_delimited: { delimiter: '|' } } })), of(makeEvents(2)));
    expect(server.requests[0]!.body).to.equal('m0|m1|');
  });

  it('compression zlib: a zlib stream with Content-Encoding: deflate', async () => {
    await runSink(fast(httpConfig(server.url, { compression: 'zlib' })), of(makeEvents(2)));
    const r = server.requests[0]!;
    expect(r.headers['content-encoding']).to.equal('deflate');
    expect(r.raw[0]).to.equal(0x78); // zlib header, not raw deflate
    expect(JSON.parse(inflateSync(r.raw).toString())).to.deep.equal([{ message: 'm0', i: 0 }, { message: 'm1', i: 1 }]);
  });
});
