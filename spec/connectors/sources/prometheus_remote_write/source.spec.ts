import { expect } from 'chai';
import { type Server, createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import * as v from 'valibot';
import { PrometheusRemoteWriteSourceConfig, buildPrometheusRemoteWriteSource } from '../../../../connectors/sources/prometheus_remote_write/index.js';
import { METRIC_TYPE, type WireWriteRequest, encodeWriteRequest } from '../../../../connectors/shared/prometheus/remote-write-proto.js';
import { type EventBatch, type MetricEvent, settleAll } from '../../../../lib/event.js';
import { snappyCompress } from '../../../../lib/net/snappy.js';
import { makeTestCerts } from '../../../helpers/certs.js';
import { until } from '../../../helpers/wait.js';
import { sharedPrometheus } from '../../../peers/prometheus.js';
import { testSourceContext } from '../source-context.js';

/** A running source; its batches collected. */
async function startSource(options: Record<string, unknown> = {}) {
  const ctx = testSourceContext('prometheus_remote_write');
  const config = v.parse(PrometheusRemoteWriteSourceConfig, { type: 'prometheus_remote_write', address: '127.0.0.1:0', ...options });
  const batches: MetricEvent[][] = [];
  const sub = buildPrometheusRemoteWriteSource(config, ctx).subscribe({ next: (b: EventBatch) => batches.push(b as MetricEvent[]), error: (e) => expect.fail(String(e)) });
  await until(() => ctx.listeningAddress() !== undefined, 10_000, 'the listener');
  const port = Number(ctx.listeningAddress()!.split(':').pop());
  return { ctx, batches, port, stop: () => sub.unsubscribe() };
}

const labels = (o: Record<string, string>) => Object.entries(o).map(([name, value]) => ({ name, value }));

/** POSTs a request body; snappy-compressed unless another encoding is named. */
async function post(port: number, req: WireWriteRequest | Buffer, o: { path?: string; encoding?: string; headers?: Record<string, string>; method?: string; scheme?: string; dispatcher?: Agent } = {}) {
  const proto = Buffer.isBuffer(req) ? req : Buffer.from(encodeWriteRequest(req));
  const body = o.encoding === 'gzip' ? gzipSync(proto) : o.encoding === 'identity' || o.encoding === 'zstd' ? proto : snappyCompress(proto);
  const headers: Record<string, string> = { 'content-type': 'application/x-protobuf', ...(o.headers ?? {}) };
  if (o.encoding !== undefined) headers['content-encoding'] = o.encoding;
  const res = await request(`${o.scheme ?? 'http'}://127.0.0.1:${port}${o.path ?? '/'}`, { method: (o.method ?? 'POST') as 'POST', body: o.method === 'GET' ? undefined : body, headers, dispatcher: o.dispatcher });
  return { status: res.statusCode, text: await res.body.text() };
}

const T = 1_700_000_000_000;
const TYPED: WireWriteRequest = {
  metadata: [
    { type: METRIC_TYPE.counter, metric_family_name: 'reqs_total', help: '', unit: '' },
    { type: METRIC_TYPE.histogram, metric_family_name: 'lat', help: '', unit: '' },
    { type: METRIC_TYPE.summary, metric_family_name: 'rpc', help: '', unit: '' },
  ],
  timeseries: [
    { labels: labels({ __name__: 'reqs_total', code: '200' }), samples: [{ value: 5, timestamp: T }] },
    { labels: labels({ __name__: 'lat_bucket', le: '0.5' }), samples: [{ value: 2, timestamp: T }] },
    { labels: labels({ __name__: 'lat_bucket', le: '1' }), samples: [{ value: 3, timestamp: T }] },
    { labels: labels({ __name__: 'lat_bucket', le: '+Inf' }), samples: [{ value: 4, timestamp: T }] },
    { labels: labels({ __name__: 'lat_sum', }), samples: [{ value: 9, timestamp: T }] },
    { labels: labels({ __name__: 'lat_count' }), samples: [{ value: 4, timestamp: T }] },
    { labels: labels({ __name__: 'rpc', quantile: '0.5' }), samples: [{ value: 0.1, timestamp: T }] },
    { labels: labels({ __name__: 'rpc_sum' }), samples: [{ value: 3, timestamp: T }] },
    { labels: labels({ __name__: 'rpc_count' }), samples: [{ value: 7, timestamp: T }] },
    { labels: labels({ __name__: 'temp', room: 'a' }), samples: [{ value: 21.5, timestamp: T }, { value: 22, timestamp: T + 1000 }] },
  ],
};

describe('connectors/sources/prometheus_remote_write', () => {
  it('has Vector\'s defaults', () => {
    const c = v.parse(PrometheusRemoteWriteSourceConfig, { type: 'prometheus_remote_write', address: '0.0.0.0:9090' });
    expect(c).to.deep.include({ path: '/', metadata_conflict_strategy: 'reject', skip_nan_values: false });
    expect(() => v.parse(PrometheusRemoteWriteSourceConfig, { type: 'prometheus_remote_write' })).to.throw();
    expect(() => v.parse(PrometheusRemoteWriteSourceConfig, { type: 'prometheus_remote_write', address: 'x' })).to.throw(/host:port/);
  });

  it('groups series by the request\'s metadata into counters, histograms, summaries and gauges', async () => {
    const s = await startSource();
    try {
      expect((await post(s.port, TYPED)).status).to.equal(200);
      expect(s.batches).to.have.length(1);
      const got = s.batches[0]!.map((m) => m.toJSON());
      const ts = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
      expect(got).to.deep.equal([
        { name: 'reqs_total', tags: { code: '200' }, timestamp: ts(T), kind: 'absolute', counter: { value: 5 } },
        { name: 'lat', timestamp: ts(T), kind: 'absolute', aggregated_histogram: { buckets: [{ upper_limit: 0.5, count: 2 }, { upper_limit: 1, count: 1 }], count: 4, sum: 9 } },
        { name: 'rpc', timestamp: ts(T), kind: 'absolute', aggregated_summary: { quantiles: [{ quantile: 0.5, value: 0.1 }], count: 7, sum: 3 } },
        { name: 'temp', tags: { room: 'a' }, timestamp: ts(T), kind: 'absolute', gauge: { value: 21.5 } },
        { name: 'temp', tags: { room: 'a' }, timestamp: ts(T + 1000), kind: 'absolute', gauge: { value: 22 } },
      ]);
      expect(s.ctx.metric('component_received_bytes_total')).to.be.greaterThan(0);
    } finally {
      s.stop();
    }
  });

  it('metadata_conflict_strategy: reject answers 400, ignore keeps the first type', async () => {
    const conflicting: WireWriteRequest = {
      metadata: [
        { type: METRIC_TYPE.counter, metric_family_name: 'x', help: '', unit: '' },
        { type: METRIC_TYPE.gauge, metric_family_name: 'x', help: '', unit: '' },
      ],
      timeseries: [{ labels: labels({ __name__: 'x' }), samples: [{ value: 1, timestamp: T }] }],
    };
    const reject = await startSource();
    const ignore = await startSource({ metadata_conflict_strategy: 'ignore' });
    try {
      const r = await post(reject.port, conflicting);
      expect(r.status).to.equal(400);
      expect(r.text).to.match(/multiple metric kinds given for metric name `x`/);
      expect(reject.ctx.metric('component_errors_total', { error_type: 'parser_failed' })).to.equal(1);
      expect((await post(ignore.port, conflicting)).status).to.equal(200);
      expect(ignore.batches[0]![0]!.value).to.deep.equal({ type: 'counter', value: 1 });
    } finally {
      reject.stop();
      ignore.stop();
    }
  });

  it('skip_nan_values drops NaN samples (Prometheus\'s staleness markers)', async () => {
    const req: WireWriteRequest = { metadata: [], timeseries: [{ labels: labels({ __name__: 'g' }), samples: [{ value: NaN, timestamp: T }, { value: 1, timestamp: T + 1 }] }] };
    const keep = await startSource();
    const skip = await startSource({ skip_nan_values: true });
    try {
      await post(keep.port, req);
      await post(skip.port, req);
      expect(keep.batches[0]!).to.have.length(2);
      expect(skip.batches[0]!.map((m) => m.value)).to.deep.equal([{ type: 'gauge', value: 1 }]);
    } finally {
      keep.stop();
      skip.stop();
    }
  });

  it('reads snappy by default and gzip or identity when named; refuses other encodings and bodies', async () => {
    const s = await startSource();
    const one: WireWriteRequest = { metadata: [], timeseries: [{ labels: labels({ __name__: 'g' }), samples: [{ value: 1, timestamp: T }] }] };
    try {
      expect((await post(s.port, one)).status).to.equal(200);
      expect((await post(s.port, one, { encoding: 'gzip' })).status).to.equal(200);
      expect((await post(s.port, one, { encoding: 'identity' })).status).to.equal(200);
      expect((await post(s.port, one, { encoding: 'zstd' })).status).to.equal(415);
      expect((await post(s.port, Buffer.from('not protobuf at all, really'))).status).to.equal(400);
      expect((await post(s.port, { metadata: [], timeseries: [{ labels: labels({ job: 'x' }), samples: [{ value: 1, timestamp: T }] }] })).text).to.match(/missing metric name label/);
      expect(s.batches).to.have.length(3);
    } finally {
      s.stop();
    }
  });

  it('answers only POST on `path`', async () => {
    const s = await startSource({ path: '/api/v1/write' });
    const one: WireWriteRequest = { metadata: [], timeseries: [{ labels: labels({ __name__: 'g' }), samples: [{ value: 1, timestamp: T }] }] };
    try {
      expect((await post(s.port, one)).status).to.equal(404);
      expect((await post(s.port, one, { path: '/api/v1/write', method: 'GET' })).status).to.equal(405);
      expect((await post(s.port, one, { path: '/api/v1/write' })).status).to.equal(200);
    } finally {
      s.stop();
    }
  });

  it('demands auth, serves TLS', async () => {
    const certs = makeTestCerts();
    const s = await startSource({ auth: { username: 'u', password: 'p' }, tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey } });
    const agent = new Agent({ connect: { ca: certs.read(certs.caCrt), servername: 'localhost' } });
    const one: WireWriteRequest = { metadata: [], timeseries: [{ labels: labels({ __name__: 'g' }), samples: [{ value: 1, timestamp: T }] }] };
    try {
      expect((await post(s.port, one, { scheme: 'https', dispatcher: agent })).status).to.equal(401);
      expect((await post(s.port, one, { scheme: 'https', dispatcher: agent, headers: { authorization: `Basic ${Buffer.from('u:x').toString('base64')}` } })).status).to.equal(401);
      expect((await post(s.port, one, { scheme: 'https', dispatcher: agent, headers: { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` } })).status).to.equal(200);
    } finally {
      s.stop();
      await agent.close();
      certs.remove();
    }
  });

  for (const [status, code] of [
    ['delivered', 200],
    ['errored', 500],
    ['rejected', 400],
  ] as const) {
    it(`with acknowledgements answers once the events settle: ${status} gives ${code}`, async () => {
      const s = await startSource({ acknowledgements: { enabled: true } });
      try {
        const answered = post(s.port, TYPED);
        await until(() => s.batches.length === 1, 10_000, 'the batch');
        let done = false;
        void answered.then(() => (done = true));
        await new Promise((r) => setTimeout(r, 50));
        expect(done).to.equal(false);
        settleAll(s.batches[0]!, status);
        expect((await answered).status).to.equal(code);
      } finally {
        s.stop();
      }
    });
  }

  it('the real Prometheus remote-writes what it scraped; series arrive (untyped, as 2.42 sends metadata apart) with their values', async function () {
    this.timeout(120_000);
    const prom = await sharedPrometheus();
    const s = await startSource({ path: '/api/v1/write', auth: { username: 'prom', password: 'pw' } });
    // the page Prometheus scrapes and forwards
    const page = '# TYPE rwtest_requests_total counter\nrwtest_requests_total{code="200"} 17\n# TYPE rwtest_temp gauge\nrwtest_temp{room="x y"} -2.5\n# TYPE rwtest_lat histogram\nrwtest_lat_bucket{le="1"} 3\nrwtest_lat_bucket{le="+Inf"} 5\nrwtest_lat_sum 6.5\nrwtest_lat_count 5\n';
    const fixture: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(page));
    await new Promise<void>((r) => fixture.listen(0, '127.0.0.1', r));
    const fixturePort = (fixture.address() as { port: number }).port;
    try {
      await prom.configure(
        [
          'global:',
          '  scrape_interval: 1s',
          'scrape_configs:',
          '  - job_name: rwtest',
          `    static_configs: [{ targets: ["127.0.0.1:${fixturePort}"] }]`,
          'remote_write:',
          `  - url: http://127.0.0.1:${s.port}/api/v1/write`,
          '    basic_auth: { username: prom, password: pw }',
          '    queue_config: { batch_send_deadline: 1s, min_backoff: 100ms, max_backoff: 1s }',
          '    metadata_config: { send_interval: 1s }',
          '',
        ].join('\n'),
      );
      const all = () => s.batches.flat();
      const find = (name: string, pred: (m: MetricEvent) => boolean = () => true) => all().find((m) => m.name === name && m.tags?.job === 'rwtest' && pred(m));
      await until(() => find('rwtest_requests_total') !== undefined && find('rwtest_lat_bucket') !== undefined && find('rwtest_temp') !== undefined, 60_000, 'the forwarded series');
      const counter = find('rwtest_requests_total')!;
      expect(counter.value).to.deep.equal({ type: 'gauge', value: 17 });
      expect(counter.tags).to.deep.include({ code: '200', instance: `127.0.0.1:${fixturePort}`, job: 'rwtest' });
      expect(find('rwtest_temp')!.tags!.room).to.equal('x y');
      expect(find('rwtest_temp')!.value).to.deep.equal({ type: 'gauge', value: -2.5 });
      expect(find('rwtest_lat_bucket', (m) => m.tags?.le === '+Inf')!.value).to.deep.equal({ type: 'gauge', value: 5 });
      expect(Math.abs(counter.timestamp!.ms - Date.now())).to.be.below(120_000);
      expect(s.ctx.metric('component_errors_total')).to.equal(0);
    } finally {
      await prom.configure('global:\n  scrape_interval: 1s\n');
      s.stop();
      fixture.closeAllConnections();
      fixture.close();
    }
  });
});
