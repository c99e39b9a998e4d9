import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { Subject, VirtualTimeScheduler } from 'rxjs';
import * as v from 'valibot';
import { type Delivery, type EventBatch, EventMetadata, MetricEvent, type MetricKind, type MetricValue } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { PrometheusExporterConfig } from '../../../../connectors/sinks/prometheus_exporter/config.js';
import { type ExporterHandle, buildPrometheusExporterSink } from '../../../../connectors/sinks/prometheus_exporter/sink.js';
import { makeTestCerts } from '../../../helpers/certs.js';
import { testSinkContext } from '../../../helpers/sink-context.js';

const metric = (name: string, kind: MetricKind, value: MetricValue, tags?: Record<string, string>, ts?: number) =>
  new MetricEvent(name, kind, value, new EventMetadata('in', 'test'), undefined, tags, ts === undefined ? undefined : new Timestamp(ts));

/** A running exporter fed through a subject, on a virtual clock. */
async function startExporter(options: Record<string, unknown> = {}) {
  const config = v.parse(PrometheusExporterConfig, { type: 'prometheus_exporter', inputs: ['in'], address: '127.0.0.1:0', ...options });
  const scheduler = new VirtualTimeScheduler();
  scheduler.maxFrames = 0;
  const ctx = testSinkContext('prometheus_exporter', { scheduler });
  let handle: ExporterHandle | undefined;
  const input = new Subject<EventBatch>();
  const deliveries: Delivery[] = [];
  let failure: unknown;
  const sub = input.pipe(buildPrometheusExporterSink(config, ctx, (h) => (handle = h))).subscribe({ next: (d) => deliveries.push(d), error: (e) => (failure = e) });
  const port = await handle!.listening;
  const scheme = (options.tls as { enabled?: boolean } | undefined)?.enabled ? 'https' : 'http';
  return {
    ctx,
    store: handle!.store,
    deliveries,
    failure: () => failure,
    send: (...events: MetricEvent[]) => input.next(events),
    /** Advances the virtual clock to `ms`, running the sweeps due. */
    advanceTo(ms: number) {
      scheduler.maxFrames = ms;
      scheduler.flush();
      // flush stops at the last action run; the clock itself moves on to `ms`
      scheduler.frame = ms;
    },
    async scrape(headers: Record<string, string> = {}, path = '/metrics', dispatcher?: Agent) {
      const res = await request(`${scheme}://127.0.0.1:${port}${path}`, { headers, dispatcher });
      const raw = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: res.headers, raw, text: res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString() : raw.toString() };
    },
    port,
    stop: () => sub.unsubscribe(),
  };
}

/** The sample lines (no comments) of an exposition. */
const samples = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('connectors/sinks/prometheus_exporter', () => {
  it('has Vector\'s defaults', () => {
    const c = v.parse(PrometheusExporterConfig, { type: 'prometheus_exporter', inputs: ['in'] });
    expect(c).to.deep.include({ address: '0.0.0.0:9598', flush_period_secs: 60, distributions_as_summaries: false, suppress_timestamp: false });
    expect(c.default_namespace).to.equal(undefined);
    expect(c.buckets).to.deep.equal([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    expect(c.quantiles).to.deep.equal([0.5, 0.75, 0.9, 0.95, 0.99]);
    expect(() => v.parse(PrometheusExporterConfig, { type: 'prometheus_exporter', inputs: ['in'], quantiles: [1.5] })).to.throw(/between 0 and 1/);
    expect(() => v.parse(PrometheusExporterConfig, { type: 'prometheus_exporter', inputs: ['in'], address: 'nowhere' })).to.throw(/host:port/);
  });

  it('accumulates incremental counters, replaces gauges and absolute values, and delivers each batch', async () => {
    const x = await startExporter();
    try {
      x.send(metric('hits', 'incremental', { type: 'counter', value: 2 }, { code: '200' }), metric('temp', 'absolute', { type: 'gauge', value: 20 }));
      x.send(metric('hits', 'incremental', { type: 'counter', value: 3 }, { code: '200' }), metric('temp', 'absolute', { type: 'gauge', value: 18 }));
      x.send(metric('total', 'absolute', { type: 'counter', value: 10 }), metric('total', 'absolute', { type: 'counter', value: 7 }));
      x.send(metric('load', 'incremental', { type: 'gauge', value: 1 }), metric('load', 'incremental', { type: 'gauge', value: -0.25 }));
      const r = await x.scrape();
      expect(r.status).to.equal(200);
      expect(r.headers['content-type']).to.equal('text/plain; version=0.0.4');
      expect(samples(r.text)).to.deep.equal(['hits{code="200"} 5', 'load 0.75', 'temp 18', 'total 7']);
      expect(x.deliveries.map((d) => [d.status, d.events.length])).to.deep.equal([
        ['delivered', 2],
        ['delivered', 2],
        ['delivered', 2],
        ['delivered', 2],
      ]);
    } finally {
      x.stop();
    }
  });

  it('renders distributions as histograms over `buckets`, or as summaries over `quantiles` with distributions_as_summaries', async () => {
    const dist: MetricValue = { type: 'distribution', samples: [{ value: 0.5, rate: 1 }, { value: 2, rate: 2 }, { value: 9, rate: 1 }], statistic: 'histogram' };
    const h = await startExporter({ buckets: [1, 3] });
    const s = await startExporter({ distributions_as_summaries: true, quantiles: [0.5, 1] });
    try {
      for (const x of [h, s]) {
        x.send(metric('lat', 'incremental', dist));
        x.send(metric('lat', 'incremental', dist));
      }
      expect(samples((await h.scrape()).text)).to.deep.equal(['lat_bucket{le="1"} 2', 'lat_bucket{le="3"} 6', 'lat_bucket{le="+Inf"} 8', 'lat_sum 27', 'lat_count 8']);
      const st = await s.scrape();
      expect(st.text).to.include('# TYPE lat summary');
      expect(samples(st.text)).to.deep.equal(['lat{quantile="0.5"} 2', 'lat{quantile="1"} 9', 'lat_sum 27', 'lat_count 8']);
    } finally {
      h.stop();
      s.stop();
    }
  });

  it('prefixes metrics without a namespace with default_namespace', async () => {
    const x = await startExporter({ default_namespace: 'weir' });
    try {
      x.send(metric('a', 'absolute', { type: 'gauge', value: 1 }), new MetricEvent('b', 'absolute', { type: 'gauge', value: 2 }, new EventMetadata('in', 't'), 'own'));
      expect(samples((await x.scrape()).text)).to.deep.equal(['own_b 2', 'weir_a 1']);
    } finally {
      x.stop();
    }
  });

  it('writes timestamps unless suppress_timestamp', async () => {
    const on = await startExporter();
    const off = await startExporter({ suppress_timestamp: true });
    try {
      for (const x of [on, off]) x.send(metric('g', 'absolute', { type: 'gauge', value: 1 }, undefined, 1_700_000_000_000));
      expect(samples((await on.scrape()).text)).to.deep.equal(['g 1 1700000000000']);
      expect(samples((await off.scrape()).text)).to.deep.equal(['g 1']);
    } finally {
      on.stop();
      off.stop();
    }
  });

  it('drops series not updated within flush_period_secs, at the sweep after it (virtual time)', async () => {
    const x = await startExporter({ flush_period_secs: 10 });
    try {
      x.send(metric('old', 'absolute', { type: 'gauge', value: 1 }), metric('kept', 'absolute', { type: 'gauge', value: 1 }));
      x.advanceTo(9_000);
      x.send(metric('kept', 'absolute', { type: 'gauge', value: 2 }));
      x.advanceTo(10_000); // sweep: old is 10 s old, kept 1 s
      expect(samples((await x.scrape()).text)).to.deep.equal(['kept 2']);
      x.advanceTo(19_999);
      expect(x.store.size).to.equal(1);
      x.advanceTo(20_000); // kept is 11 s old now
      expect(x.store.size).to.equal(0);
      expect(x.ctx.metric('prometheus_exporter_expired_series_total')).to.equal(2);
    } finally {
      x.stop();
    }
  });

  it('keeps every series with flush_period_secs = 0', async () => {
    const x = await startExporter({ flush_period_secs: 0 });
    try {
      x.send(metric('old', 'absolute', { type: 'gauge', value: 1 }));
      x.advanceTo(10_000_000);
      expect(samples((await x.scrape()).text)).to.deep.equal(['old 1']);
    } finally {
      x.stop();
    }
  });

  it('demands the configured basic or bearer credentials (401 otherwise)', async () => {
    const basic = await startExporter({ auth: { strategy: 'basic', user: 'u', password: 'p' } });
    const bearer = await startExporter({ auth: { strategy: 'bearer', token: 'tok' } });
    try {
      basic.send(metric('g', 'absolute', { type: 'gauge', value: 1 }));
      const denied = await basic.scrape();
      expect(denied.status).to.equal(401);
      expect(denied.headers['www-authenticate']).to.equal('Basic, Bearer');
      expect((await basic.scrape({ authorization: `Basic ${Buffer.from('u:wrong').toString('base64')}` })).status).to.equal(401);
      expect((await basic.scrape({ authorization: `Basic ${Buffer.from('u:p').toString('base64')}` })).text).to.include('g 1');
      expect((await bearer.scrape({ authorization: 'Bearer nope' })).status).to.equal(401);
      expect((await bearer.scrape({ authorization: 'Bearer tok' })).status).to.equal(200);
    } finally {
      basic.stop();
      bearer.stop();
    }
  });

  it('serves over TLS with tls.enabled, gzip when asked, and 404 off /metrics', async () => {
    const certs = makeTestCerts();
    const x = await startExporter({ tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey } });
    const agent = new Agent({ connect: { ca: certs.read(certs.caCrt), servername: 'localhost' } });
    try {
      x.send(metric('g', 'absolute', { type: 'gauge', value: 4 }));
      const r = await x.scrape({ 'accept-encoding': 'gzip' }, '/metrics', agent);
      expect(r.headers['content-encoding']).to.equal('gzip');
      expect(samples(r.text)).to.deep.equal(['g 4']);
      expect((await x.scrape({}, '/other', agent)).status).to.equal(404);
      // plain HTTP on the TLS port gets no exposition
      const plain = await request(`http://127.0.0.1:${x.port}/metrics`).then((res) => res.statusCode, () => 0);
      expect(plain).to.not.equal(200);
    } finally {
      x.stop();
      await agent.close();
      certs.remove();
    }
  });

  it('listens on `address` and fails when it is taken', async () => {
    const a = await startExporter();
    try {
      const config = v.parse(PrometheusExporterConfig, { type: 'prometheus_exporter', inputs: ['in'], address: `127.0.0.1:${a.port}` });
      const err = await new Promise<unknown>((resolve) => new Subject<EventBatch>().pipe(buildPrometheusExporterSink(config, testSinkContext('prometheus_exporter'))).subscribe({ error: resolve }));
      expect(String(err)).to.match(/cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    } finally {
      a.stop();
    }
  });
});
