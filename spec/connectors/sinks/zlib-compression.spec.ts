/**
 * `compression = "zlib"` on siem_hec_metrics, logsvc_metrics and labelstore: the body is zlib
 * (RFC 1950) deflated and sent with `Content-Encoding: deflate`, as Vector sends it.
 * The store's strict peer reads deflate; the HEC and LogScale peers accept gzip only (as their
 * services document), so those two sinks are checked against a recording server.
 */
import { expect } from 'chai';
import { of } from 'rxjs';
import { inflateSync } from 'node:zlib';
import * as v from 'valibot';
import { LabelstoreConfig } from '../../../connectors/sinks/labelstore/config.js';
import { LogsvcMetricsConfig } from '../../../connectors/sinks/logsvc_metrics/config.js';
import { SiemHecMetricsConfig } from '../../../connectors/sinks/siem_hec_metrics/config.js';
import { type RecordedRequest, type TestServer, startTestServer } from '../../helpers/http-test-server.js';
import { type LokiPeer, startLoki } from '../../peers/loki.js';
import { counter } from '../shared/hec/harness.js';
import { fast as lsFast, log, lsConfig, runSink as runLabelstore } from './labelstore/harness.js';
import { fast as logsvcFast, logsvcConfig, runSink as runLogsvc } from './logsvc_metrics/harness.js';
import { fast as siemFast, runSink as runSiem, siemConfig } from './siem_hec_metrics/harness.js';

describe('connectors/sinks: compression = "zlib"', function () {
  this.timeout(20_000);
  let server: TestServer;
  let loki: LokiPeer;
  before(async () => {
    server = await startTestServer((req) => (req.url.startsWith('/services/collector') ? { status: 200, body: '{"text":"Success","code":0}' } : 200));
    loki = await startLoki();
  });
  after(async () => {
    await server.close();
    await loki.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    loki.clear();
  });

  it('is accepted by the three sinks and still refused elsewhere in the list', () => {
    for (const [schema, base] of [
      [SiemHecMetricsConfig, { type: 'siem_hec_metrics', endpoint: 'http://h', default_token: 't' }],
      [LogsvcMetricsConfig, { type: 'logsvc_metrics', token: 't' }],
      [LabelstoreConfig, { type: 'labelstore', endpoint: 'http://h', labels: { a: 'b' }, encoding: { codec: 'json' } }],
    ] as const) {
      expect(v.safeParse(schema, { ...base, inputs: ['in'], compression: 'zlib' }).success, base.type).to.equal(true);
      expect(v.safeParse(schema, { ...base, inputs: ['in'], compression: 'zstd' }).success, base.type).to.equal(false);
    }
  });

  it('siem_hec_metrics: the same envelopes deflated, Content-Encoding: deflate, Content-Type still JSON', async () => {
    const run = (compression: string) =>
      runSiem(siemFast(siemConfig(server.url, { compression, acknowledgements: { indexer_acknowledgements_enabled: false } })), of([counter('a', 1), counter('b', 2)]));
    expect((await run('none')).map((d) => d.status)).to.deep.equal(['delivered']);
    const ds = await run('zlib');
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    const [plain, post] = server.requests as [RecordedRequest, RecordedRequest];
    expect(plain.headers).to.not.have.property('content-encoding');
    expect(post.headers).to.include({ 'content-encoding': 'deflate', 'content-type': 'application/json' });
    expect(inflateSync(post.raw).toString()).to.equal(plain.raw.toString()).and.include('"metric_name":"a"');
    expect(ds[0]!.bytes).to.equal(post.raw.length);
  });

  it('logsvc_metrics: the same body deflated, Content-Encoding: deflate', async () => {
    const run = (compression: string) => runLogsvc(logsvcFast(logsvcConfig(server.url, { compression })), of([counter('a', 1), counter('b', 2)]));
    expect((await run('none')).map((d) => d.status)).to.deep.equal(['delivered']);
    const ds = await run('zlib');
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    const [plain, post] = server.requests as [RecordedRequest, RecordedRequest];
    expect(post.headers['content-encoding']).to.equal('deflate');
    expect(inflateSync(post.raw).toString()).to.equal(plain.raw.toString()).and.include('"counter"');
  });

  it('labelstore: the JSON form deflated, and the strict store reads it', async () => {
    const ds = await runLabelstore(lsFast(lsConfig(loki.url, { compression: 'zlib' })), of([log('a', 1), log('b', 2)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    const req = loki.requests[0]!;
    expect(req.headers).to.include({ 'content-type': 'application/json', 'content-encoding': 'deflate' });
    expect((JSON.parse(inflateSync(req.raw).toString()) as { streams: unknown[] }).streams).to.have.length(1);
    expect(loki.entries.map((e) => e.line)).to.deep.equal(['{"message":"a","app":"web"}', '{"message":"b","app":"web"}']);
  });
});
