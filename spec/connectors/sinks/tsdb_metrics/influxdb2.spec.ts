import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type Influxdb2Peer, startInfluxdb2 } from '../../../peers/influxdb2.js';
import { counter, fast, gauge, metric, runSink, tsdbConfig } from './harness.js';

const T0N = 1_700_000_000_000_000_011n;

describe('connectors/sinks/tsdb_metrics: generation 2 against the strict InfluxDB 2.x server', () => {
  let peer: Influxdb2Peer;
  beforeEach(async () => {
    peer = await startInfluxdb2({ token: 'tok', orgs: { acme: ['metrics', 'other'] } });
  });
  afterEach(() => peer.close());

  const v2 = (extra: Record<string, unknown> = {}) => fast(tsdbConfig(peer.url, { org: 'acme', bucket: 'metrics', token: 'tok', ...extra }), { retry_attempts: 0 });

  it('POSTs /api/v2/write?org&bucket&precision=ns with Authorization: Token and text/plain; counts are unsigned (u)', async () => {
    const ds = await runSink(v2(), of([
      counter('requests', 3, { namespace: 'app', tags: { host: 'a' } }),
      metric('latency', { type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 4 }], count: 4, sum: 1.5 }, { kind: 'absolute' }),
    ]));
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 2]]);
    const [req] = peer.requests;
    expect([req!.method, req!.path, req!.query.toString()]).to.deep.equal(['POST', '/api/v2/write', 'org=acme&bucket=metrics&precision=ns']);
    expect(req!.headers.authorization).to.equal('Token tok');
    expect(req!.headers['content-type']).to.equal('text/plain');
    expect(peer.pointsOf('app.requests').map((p) => [p.bucket, p.tags, p.fields, p.time])).to.deep.equal([
      ['metrics', { host: 'a', metric_type: 'counter' }, { value: { type: 'float', value: 3 } }, T0N],
    ]);
    expect(peer.pointsOf('latency')[0]!.fields).to.deep.equal({ bucket_1: { type: 'unsigned', value: 4n }, count: { type: 'unsigned', value: 4n }, sum: { type: 'float', value: 1.5 } });
  });

  it('bucket and org pick where points go; the endpoint may end in a slash', async () => {
    await runSink(fast(tsdbConfig(peer.url + '/', { org: 'acme', bucket: 'other', token: 'tok' })), of([gauge('g', 1, { kind: 'absolute' })]));
    expect(peer.pointsOf('g', 'other')).to.have.length(1);
    expect(peer.pointsOf('g', 'metrics')).to.have.length(0);
  });

  it('a wrong token (401), an unknown org or bucket (404) are rejected and not retried', async () => {
    for (const extra of [{ token: 'nope' }, { org: 'nobody' }, { bucket: 'missing' }]) {
      const ctx = testSinkContext('tsdb_metrics');
      const ds = await runSink(fast(tsdbConfig(peer.url, { org: 'acme', bucket: 'metrics', token: 'tok', ...extra })), of([counter('c', 1)]), ctx);
      expect(ds.map((d) => d.status), JSON.stringify(extra)).to.deep.equal(['rejected']);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
    }
    expect(peer.requests).to.have.length(3);
    expect(peer.points).to.have.length(0);
  });

  it('a field type conflict (422 partial write) is rejected, not retried', async () => {
    // a distribution writes `count` as a float, a histogram as an unsigned integer
    await runSink(v2(), of([metric('d', { type: 'distribution', samples: [{ value: 1, rate: 1 }], statistic: 'histogram' })]));
    const ctx = testSinkContext('tsdb_metrics');
    const ds = await runSink(v2(), of([metric('d', { type: 'aggregated_histogram', buckets: [], count: 2, sum: 1 }, { kind: 'absolute' })]), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(peer.requests).to.have.length(2);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('request.headers are sent with every write; they cannot replace the token', async () => {
    await runSink(v2({ request: { headers: { 'X-Scope': 'team-a' } } }), of([counter('c', 1)]));
    expect(peer.requests[0]!.headers['x-scope']).to.equal('team-a');
    expect(peer.requests[0]!.headers.authorization).to.equal('Token tok');
  });

  it('batch.max_events splits writes; default_namespace and tags shape every line', async () => {
    const events = Array.from({ length: 5 }, (_, i) => counter(`c${i}`, i));
    const ds = await runSink(v2({ batch: { max_events: 2 }, default_namespace: 'svc', tags: { dc: 'x' } }), of(events));
    expect(ds.map((d) => d.events.length)).to.deep.equal([2, 2, 1]);
    expect(peer.requests).to.have.length(3);
    expect(peer.points.map((p) => [p.measurement, p.tags])).to.deep.equal(events.map((_, i) => [`svc.c${i}`, { dc: 'x', metric_type: 'counter' }]));
  });

  it('an event the encoder cannot take is rejected alone and counted; the rest is written', async () => {
    const ctx = testSinkContext('tsdb_metrics');
    const ds = await runSink(v2(), of([counter('ok', 1), metric('empty', { type: 'distribution', samples: [], statistic: 'summary' })]), ctx);
    expect(ds.map((d) => [d.status, d.events.length]).sort()).to.deep.equal([['delivered', 1], ['rejected', 1]]);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(1);
    expect(peer.points.map((p) => p.measurement)).to.deep.equal(['ok']);
  });
});
