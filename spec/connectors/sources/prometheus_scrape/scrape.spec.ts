import { expect } from 'chai';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { VirtualTimeScheduler } from 'rxjs';
import * as v from 'valibot';
import { PrometheusScrapeConfig, buildPrometheusScrapeSource } from '../../../../connectors/sources/prometheus_scrape/index.js';
import type { EventBatch, MetricEvent } from '../../../../lib/event.js';
import { makeTestCerts } from '../../../helpers/certs.js';
import { until } from '../../../helpers/wait.js';
import { sharedPrometheus } from '../../../peers/prometheus.js';
import { FIXTURE_TEXT } from '../../shared/prometheus/fixture.js';
import { testSourceContext } from '../source-context.js';

/** A fixture endpoint: answers with `body()` (or never, when it is undefined) and records requests. */
async function fixtureServer(body: () => string | undefined = () => FIXTURE_TEXT, tls?: { key: Buffer; cert: Buffer }) {
  const requests: IncomingMessage[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    const text = body();
    if (text === undefined) return; // hangs
    res.writeHead(text.startsWith('HTTP ') ? Number(text.slice(5, 8)) : 200, { 'content-type': 'text/plain; version=0.0.4' }).end(text);
  };
  const server: Server = tls ? createTlsServer(tls, handler) : createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/metrics`,
    port,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

/** Runs the source on a virtual clock; batches collected. */
function run(options: Record<string, unknown>) {
  const scheduler = new VirtualTimeScheduler();
  scheduler.maxFrames = 0;
  const ctx = testSourceContext('prometheus_scrape', 'in', scheduler);
  const batches: MetricEvent[][] = [];
  const config = v.parse(PrometheusScrapeConfig, { type: 'prometheus_scrape', ...options });
  const sub = buildPrometheusScrapeSource(config, ctx).subscribe({ next: (b: EventBatch) => batches.push(b as MetricEvent[]), error: (e) => expect.fail(String(e)) });
  return {
    ctx,
    batches,
    advanceTo(ms: number) {
      scheduler.maxFrames = ms;
      scheduler.flush();
      scheduler.frame = ms;
    },
    stop: () => sub.unsubscribe(),
  };
}

const byName = (batch: MetricEvent[], name: string) => batch.filter((m) => m.name === name);

describe('connectors/sources/prometheus_scrape', () => {
  it('has Vector\'s defaults and refuses a config without endpoints', () => {
    const c = v.parse(PrometheusScrapeConfig, { type: 'prometheus_scrape', endpoints: ['http://localhost:9090/metrics'] });
    expect(c).to.deep.include({ scrape_interval_secs: 15, scrape_timeout_secs: 5, honor_labels: false, query: {} });
    expect(c.instance_tag).to.equal(undefined);
    expect(c.endpoint_tag).to.equal(undefined);
    expect(() => v.parse(PrometheusScrapeConfig, { type: 'prometheus_scrape' })).to.throw(/endpoints is required/);
    expect(() => v.parse(PrometheusScrapeConfig, { type: 'prometheus_scrape', endpoints: ['localhost:9090'] })).to.throw(/URL/);
    expect(() => v.parse(PrometheusScrapeConfig, { type: 'prometheus_scrape', endpoints: ['http://x/metrics'], bogus: 1 })).to.throw();
  });

  it('reads every metric type of the fixture endpoint, with escapes and timestamps (`hosts`, Vector\'s older name of endpoints)', async () => {
    const fx = await fixtureServer();
    const s = run({ hosts: [fx.url] });
    try {
      await until(() => s.batches.length === 1, 10_000, 'a scrape');
      const batch = s.batches[0]!;
      expect(batch).to.have.length(9);
      expect(fx.requests[0]!.headers.accept).to.equal('text/plain');
      expect(batch.every((m) => m.kind === 'absolute' && m.meta.sourceType === 'prometheus_scrape')).to.equal(true);
      expect(byName(batch, 'http_requests_total').map((m) => [m.value, m.timestamp?.ms])).to.deep.equal([
        [{ type: 'counter', value: 1027 }, 1395066363000],
        [{ type: 'counter', value: 3 }, 1395066363000],
      ]);
      expect(byName(batch, 'msdos_file_access_time_seconds')[0]!.tags).to.deep.equal({ error: 'Cannot find file:\n"FILE.TXT"', path: 'C:\\DIR\\FILE.TXT' });
      // a sample without a timestamp gets the scrape's time (virtual: 0)
      expect(byName(batch, 'temperature_celsius')[0]!.timestamp!.ms).to.equal(0);
      expect(byName(batch, 'http_request_duration_seconds')[0]!.value).to.deep.include({ type: 'aggregated_histogram', count: 144320, sum: 53423 });
      expect(byName(batch, 'rpc_duration_seconds')[0]!.value).to.deep.include({ type: 'aggregated_summary', count: 2693 });
      expect(s.ctx.metric('component_received_bytes_total')).to.equal(Buffer.byteLength(FIXTURE_TEXT));
    } finally {
      s.stop();
      await fx.close();
    }
  });

  it('scrapes at start and then every scrape_interval_secs (virtual time)', async () => {
    const fx = await fixtureServer();
    const s = run({ endpoints: [fx.url], scrape_interval_secs: 30 });
    try {
      await until(() => s.batches.length === 1, 10_000, 'the first scrape');
      s.advanceTo(29_999);
      await new Promise((r) => setTimeout(r, 50));
      expect(fx.requests).to.have.length(1);
      s.advanceTo(30_000);
      await until(() => s.batches.length === 2, 10_000, 'the second scrape');
      s.advanceTo(60_000);
      await until(() => s.batches.length === 3, 10_000, 'the third scrape');
      expect(fx.requests).to.have.length(3);
    } finally {
      s.stop();
      await fx.close();
    }
  });

  it('abandons a scrape after scrape_timeout_secs, counting it (virtual time)', async () => {
    const fx = await fixtureServer(() => undefined);
    const s = run({ endpoints: [fx.url], scrape_interval_secs: 60, scrape_timeout_secs: 7 });
    try {
      await until(() => fx.requests.length === 1, 10_000, 'the request');
      s.advanceTo(6_999);
      await new Promise((r) => setTimeout(r, 50));
      expect(s.ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(0);
      s.advanceTo(7_000);
      await until(() => s.ctx.metric('component_errors_total', { error_type: 'request_failed' }) === 1, 10_000, 'the timeout');
      expect(s.ctx.lines.some((l) => l.includes('no answer within 7 s'))).to.equal(true);
    } finally {
      s.stop();
      await fx.close();
    }
  });

  it('instance_tag and endpoint_tag: set, or the scraped one renamed to exported_* (honor_labels = false)', async () => {
    const fx = await fixtureServer(() => 'a{instance="orig",job="j"} 1\nb 2\n');
    const s = run({ endpoints: [fx.url], instance_tag: 'instance', endpoint_tag: 'endpoint', query: { 'match[]': ['{job="x"}', 'up'], single: 'one' } });
    try {
      await until(() => s.batches.length === 1, 10_000, 'a scrape');
      const url = `${fx.url}?match%5B%5D=%7Bjob%3D%22x%22%7D&match%5B%5D=up&single=one`;
      expect(fx.requests[0]!.url).to.equal(url.slice(url.indexOf('/metrics')));
      const [a, b] = s.batches[0]!;
      expect(a!.tags).to.deep.equal({ exported_instance: 'orig', instance: `127.0.0.1:${fx.port}`, job: 'j', endpoint: url });
      expect(b!.tags).to.deep.equal({ instance: `127.0.0.1:${fx.port}`, endpoint: url });
    } finally {
      s.stop();
      await fx.close();
    }
  });

  it('honor_labels = true keeps the scraped tag', async () => {
    const fx = await fixtureServer(() => 'a{instance="orig"} 1\nb 2\n');
    const s = run({ endpoints: [fx.url], instance_tag: 'instance', honor_labels: true });
    try {
      await until(() => s.batches.length === 1, 10_000, 'a scrape');
      const [a, b] = s.batches[0]!;
      expect(a!.tags).to.deep.equal({ instance: 'orig' });
      expect(b!.tags).to.deep.equal({ instance: `127.0.0.1:${fx.port}` });
    } finally {
      s.stop();
      await fx.close();
    }
  });

  it('sends auth (basic, bearer) with each scrape', async () => {
    const fx = await fixtureServer(() => 'x 1\n');
    const basic = run({ endpoints: [fx.url], auth: { strategy: 'basic', user: 'u', password: 'p' } });
    const bearer = run({ endpoints: [fx.url], auth: { strategy: 'bearer', token: 'tok' } });
    try {
      await until(() => fx.requests.length === 2, 10_000, 'two scrapes');
      expect(fx.requests.map((r) => r.headers.authorization).sort()).to.deep.equal(['Basic dTpw', 'Bearer tok']);
    } finally {
      basic.stop();
      bearer.stop();
      await fx.close();
    }
  });

  it('scrapes https endpoints trusting tls.ca_file; without it the scrape fails', async () => {
    const certs = makeTestCerts();
    const fx = await fixtureServer(() => 'x 1\n', { key: certs.read(certs.serverKey), cert: certs.read(certs.serverCrt) });
    const url = fx.url.replace('127.0.0.1', 'localhost');
    const trusted = run({ endpoints: [url], tls: { ca_file: certs.caCrt } });
    const untrusted = run({ endpoints: [url] });
    try {
      await until(() => trusted.batches.length === 1, 10_000, 'the trusted scrape');
      await until(() => untrusted.ctx.metric('component_errors_total', { error_type: 'request_failed' }) === 1, 10_000, 'the untrusted failure');
      expect(untrusted.batches).to.have.length(0);
    } finally {
      trusted.stop();
      untrusted.stop();
      await fx.close();
      certs.remove();
    }
  });

  it('a malformed page or a non-2xx answer skips that endpoint only, counted', async () => {
    const good = await fixtureServer(() => 'ok 1\n');
    const bad = await fixtureServer(() => 'broken{ 1\n');
    const missing = await fixtureServer(() => 'HTTP 404');
    const s = run({ endpoints: [good.url, bad.url, missing.url] });
    try {
      await until(() => s.batches.length === 1, 10_000, 'a scrape');
      expect(s.batches[0]!.map((m) => m.name)).to.deep.equal(['ok']);
      expect(s.ctx.metric('component_errors_total', { error_type: 'parser_failed' })).to.equal(1);
      expect(s.ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
      expect(s.ctx.lines.some((l) => l.includes('HTTP 404'))).to.equal(true);
    } finally {
      s.stop();
      await Promise.all([good.close(), bad.close(), missing.close()]);
    }
  });

  it('reads the real Prometheus\'s own /metrics (a real-world exposition) of every type', async () => {
    const prom = await sharedPrometheus();
    const s = run({ endpoints: [`${prom.url}/metrics`] });
    try {
      await until(() => s.batches.length === 1 || s.ctx.metric('component_errors_total') > 0, 20_000, 'a scrape');
      expect(s.ctx.metric('component_errors_total')).to.equal(0);
      const batch = s.batches[0]!;
      const build = byName(batch, 'prometheus_build_info')[0]!;
      expect(build.value).to.deep.equal({ type: 'gauge', value: 1 });
      expect(build.tags!.version).to.match(/^2\.42\./);
      expect(byName(batch, 'go_gc_duration_seconds')[0]!.value.type).to.equal('aggregated_summary');
      expect(byName(batch, 'prometheus_http_request_duration_seconds')[0]!.value.type).to.equal('aggregated_histogram');
      expect(byName(batch, 'prometheus_tsdb_head_series')[0]!.value.type).to.equal('gauge');
      expect(batch.some((m) => m.value.type === 'counter')).to.equal(true);
    } finally {
      s.stop();
    }
  });
});
