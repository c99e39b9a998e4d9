import { expect } from 'chai';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import { until } from '../../helpers/wait.js';
import * as v from 'valibot';
import { type Observable, defer, finalize, firstValueFrom, map, take, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { pullEvery } from '../../../connectors/shared/source/index.js';
import { EventdbMetricsConfig, buildEventdbMetricsSource } from '../../../connectors/sources/eventdb_metrics/index.js';
import { statsToMetrics } from '../../../connectors/sources/eventdb_metrics/stats.js';
import type { EventBatch, MetricEvent } from '../../../lib/event.js';
import { gateFrom } from '../../../lib/gate.js';
import { Timestamp } from '../../../lib/value.js';
import { type EventdbPeer, type NodeStats, startEventdbPeer, statsDocument } from '../../peers/eventdb.js';
import { type TestProxy, startTinyproxy } from '../../helpers/tinyproxy.js';
import { testSourceContext } from './source-context.js';

const STATS: NodeStats = {
  id: 7,
  mem: 1000,
  readBytes: 5,
  writtenBytes: 6,
  readOps: 1,
  writeOps: 2,
  freeMem: 99,
  drive: { path: '/data', availableBytes: 10, totalBytes: 30, usedBytes: 20, usage: '66%' },
};

const parse = (o: Record<string, unknown>) => v.parse(EventdbMetricsConfig, { type: 'eventdb_metrics', ...o });
const show = (m: MetricEvent) => JSON.stringify(m.toJSON());

describe('eventdb_metrics source', () => {
  describe('options', () => {
    it('defaults: https://localhost:2113/stats every 15 s, namespace eventdb', () => {
      const c = parse({});
      expect(c.endpoint).to.equal('https://localhost:2113/stats');
      expect(c.scrape_interval_secs).to.equal(15);
      expect(c.default_namespace).to.equal('eventdb');
    });
    it('rejects a non-URL endpoint, a zero interval and unknown options', () => {
      expect(v.safeParse(EventdbMetricsConfig, { type: 'eventdb_metrics', endpoint: 'localhost:2113' }).success).to.equal(false);
      expect(v.safeParse(EventdbMetricsConfig, { type: 'eventdb_metrics', scrape_interval_secs: 0 }).success).to.equal(false);
      expect(v.safeParse(EventdbMetricsConfig, { type: 'eventdb_metrics', namespace: 'x' }).success).to.equal(false);
    });
    it('accepts acknowledgements.enabled and proxy', () => {
      const c = parse({ acknowledgements: { enabled: true }, proxy: { http: 'http://127.0.0.1:3128' } });
      expect(c.proxy?.http).to.equal('http://127.0.0.1:3128');
    });
  });

  describe('the statistics document', () => {
    const at = new Timestamp(1714557600000);
    it('maps the reference example to nine absolute metrics, in order, with the id and path tags', () => {
      const out = statsToMetrics(JSON.stringify(statsDocument(STATS)), 'eventdb', at, 'in');
      expect(out).to.be.an('array');
      expect((out as MetricEvent[]).map(show)).to.deep.equal([
        '{"name":"process_memory_used_bytes","namespace":"eventdb","tags":{"id":"7"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","gauge":{"value":1000}}',
        '{"name":"disk_read_bytes_total","namespace":"eventdb","tags":{"id":"7"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","counter":{"value":5}}',
        '{"name":"disk_written_bytes_total","namespace":"eventdb","tags":{"id":"7"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","counter":{"value":6}}',
        '{"name":"disk_read_ops_total","namespace":"eventdb","tags":{"id":"7"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","counter":{"value":1}}',
        '{"name":"disk_write_ops_total","namespace":"eventdb","tags":{"id":"7"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","counter":{"value":2}}',
        '{"name":"memory_free_bytes","namespace":"eventdb","tags":{"id":"7"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","gauge":{"value":99}}',
        '{"name":"disk_total_bytes","namespace":"eventdb","tags":{"id":"7","path":"/data"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","gauge":{"value":30}}',
        '{"name":"disk_free_bytes","namespace":"eventdb","tags":{"id":"7","path":"/data"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","gauge":{"value":10}}',
        '{"name":"disk_used_bytes","namespace":"eventdb","tags":{"id":"7","path":"/data"},"timestamp":"2024-05-01T10:00:00Z","kind":"absolute","gauge":{"value":20}}',
      ]);
    });
    it('the exact reference example text, usage as an integer, and only the first drive', () => {
      const text =
        '{"proc":{"id":7,"mem":1000,"cpu":1.5,"threadsCount":9,"thrownExceptionsRate":0,"diskIo":{"readBytes":5,"writtenBytes":6,"readOps":1,"writeOps":2}},"sys":{"freeMem":99,"loadavg":{"1m":0,"5m":0,"15m":0},"drive":{"/data":{"availableBytes":10,"totalBytes":30,"usage":66,"usedBytes":20},"/other":{"availableBytes":1,"totalBytes":2,"usage":"50%","usedBytes":1}}}}';
      const out = statsToMetrics(text, 'ns', at, 'in') as MetricEvent[];
      expect(out).to.have.length(9);
      expect(out.filter((m) => m.tags?.path !== undefined).map((m) => m.tags!.path)).to.deep.equal(['/data', '/data', '/data']);
      expect(out.every((m) => m.namespace === 'ns')).to.equal(true);
    });
    it('without sys.drive: six metrics, no disk gauges', () => {
      const { drive: _drive, ...noDrive } = STATS;
      const out = statsToMetrics(JSON.stringify(statsDocument(noDrive)), 'eventdb', at, 'in') as MetricEvent[];
      expect(out.map((m) => m.name)).to.deep.equal(['process_memory_used_bytes', 'disk_read_bytes_total', 'disk_written_bytes_total', 'disk_read_ops_total', 'disk_write_ops_total', 'memory_free_bytes']);
    });
    it('a missing required key, a wrong type or bad JSON is a reason, not metrics', () => {
      const doc = statsDocument(STATS) as { proc: Record<string, unknown>; sys: Record<string, unknown> };
      const noCpu = structuredClone(doc);
      delete noCpu.proc.cpu;
      expect(statsToMetrics(JSON.stringify(noCpu), 'eventdb', at, 'in')).to.be.a('string').and.match(/proc\.cpu/);
      const noLoad = structuredClone(doc);
      (noLoad.sys.loadavg as Record<string, unknown>)['15m'] = 'high';
      expect(statsToMetrics(JSON.stringify(noLoad), 'eventdb', at, 'in')).to.be.a('string').and.match(/sys\.loadavg\.15m/);
      const fracId = structuredClone(doc);
      fracId.proc.id = 1.5;
      expect(statsToMetrics(JSON.stringify(fracId), 'eventdb', at, 'in')).to.be.a('string');
      expect(statsToMetrics('{"proc":', 'eventdb', at, 'in')).to.be.a('string').and.match(/JSON/);
      expect(statsToMetrics('[]', 'eventdb', at, 'in')).to.be.a('string');
    });
  });

  // the source paces its scrapes with pullEvery(scrape_interval_secs * 1000, scrape, output gate)
  describe('scrape timing (virtual time)', () => {
    let rx: TestScheduler;
    beforeEach(() => {
      rx = new TestScheduler((a, e) => {
        expect(a).to.deep.equal(e);
      });
    });
    it('scrapes at once, then every interval', () =>
      rx.run(({ cold, expectObservable }) => {
        let n = 0;
        const open = gateFrom(cold('a', { a: true }));
        expectObservable(pullEvery(10, () => cold('-(x|)', { x: n++ }), open, rx), '^------------------------------!').toBe('-a---------b---------c', {
          a: 0,
          b: 1,
          c: 2,
        });
      }));
    it('holds a scrape back while the output gate is closed and scrapes once when it opens', () =>
      rx.run(({ cold, hot, expectObservable }) => {
        let n = 0;
        const gate = gateFrom(hot('--c-------------------------o', { c: false, o: true }));
        // the scrape due at 10 waits behind the closed gate until 28; the next is due 10 after that one started
        expectObservable(pullEvery(10, () => cold('-(x|)', { x: n++ }), gate, rx), '^-----------------------------------------!').toBe('-a---------------------------b---------c--', {
          a: 0,
          b: 1,
          c: 2,
        });
      }));
    it('a scrape that outlasts the interval is followed by the next at once, never by an overlapping one', () =>
      rx.run(({ cold, expectObservable, flush }) => {
        let n = 0;
        let running = 0;
        let most = 0;
        const open = gateFrom(cold('a', { a: true }));
        const slow = () =>
          defer(() => {
            most = Math.max(most, ++running);
            return cold('---------------(x|)', { x: n++ });
          }).pipe(finalize(() => running--));
        // scrapes start at 0, 15 and 30: each one was due 10 after the previous started, which had not ended yet
        expectObservable(pullEvery(10, slow, open, rx), '^--------------------------------------!').toBe('---------------a--------------b--------', {
          a: 0,
          b: 1,
        });
        flush();
        expect(most).to.equal(1);
      }));
    it('an empty scrape (undefined) emits nothing and the next one still runs', () =>
      rx.run(({ cold, expectObservable }) => {
        let n = 0;
        const open = gateFrom(cold('a', { a: true }));
        expectObservable(pullEvery(10, () => cold('-(x|)', { x: n++ === 0 ? undefined : n }), open, rx), '^----------------------!').toBe('-----------a---------b', { a: 2, b: 3 });
      }));
  });

  describe('against the stats server', () => {
    let peer: EventdbPeer;
    beforeEach(async () => {
      peer = await startEventdbPeer({ ...STATS });
    });
    afterEach(async () => {
      await peer.close();
    });

    const run = (ctx: ReturnType<typeof testSourceContext>, o: Record<string, unknown>, n: number) =>
      firstValueFrom((buildEventdbMetricsSource(parse(o), ctx) as Observable<EventBatch>).pipe(take(n), map((b) => b as MetricEvent[]), toArray()));

    it('GET <endpoint> with content-type application/json and no body; the namespace option is used', async () => {
      const ctx = testSourceContext('eventdb_metrics');
      const [batch] = await run(ctx, { endpoint: `${peer.url}/stats`, default_namespace: 'es', scrape_interval_secs: 60 }, 1);
      expect(batch!.map((m) => `${m.namespace}_${m.name}`)).to.include('es_disk_used_bytes');
      expect(batch!).to.have.length(9);
      expect(batch![0]!.meta.sourceId).to.equal('in');
      expect(peer.requests).to.have.length(1);
      expect(peer.requests[0]!.method).to.equal('GET');
      expect(peer.requests[0]!.headers['content-type']).to.equal('application/json');
      expect(ctx.metric('component_received_bytes_total')).to.equal(JSON.stringify(statsDocument(STATS)).length);
    });

    it('the interval follows scrape_interval_secs and each scrape reads the node afresh', async () => {
      const ctx = testSourceContext('eventdb_metrics');
      const started = Date.now();
      const batches = firstValueFrom(
        (buildEventdbMetricsSource(parse({ endpoint: `${peer.url}/stats`, scrape_interval_secs: 0.2 }), ctx) as Observable<EventBatch>).pipe(
          map((b) => {
            peer.stats = { ...peer.stats, readOps: peer.stats.readOps + 10 };
            return b as MetricEvent[];
          }),
          take(3),
          toArray(),
        ),
      );
      const got = await batches;
      // a real clock gives a lower bound only: two intervals passed between the first and third
      expect(Date.now() - started).to.be.at.least(400);
      expect(got.map((b) => (b.find((m) => m.name === 'disk_read_ops_total')!.value as { value: number }).value)).to.deep.equal([1, 11, 21]);
    });

    it('a reset connection and bad JSON are counted and the source goes on', async () => {
      const ctx = testSourceContext('eventdb_metrics');
      let n = 0;
      peer.fault = () => (n++ === 0 ? 'reset' : undefined);
      peer.body = '{"proc": {"id": 1';
      const src = buildEventdbMetricsSource(parse({ endpoint: `${peer.url}/stats`, scrape_interval_secs: 0.05 }), ctx) as Observable<EventBatch>;
      const got = firstValueFrom(src.pipe(take(1)));
      const until = async (cond: () => boolean) => {
        for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
      };
      await until(() => ctx.metric('parse_errors_total') >= 2);
      expect(ctx.metric('http_request_errors_total')).to.equal(1);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
      expect(ctx.metric('component_errors_total', { error_type: 'parser_failed' })).to.be.at.least(2);
      expect(ctx.lines.some((l) => l.includes('could not be parsed'))).to.equal(true);
      peer.body = undefined;
      expect((await got).length).to.equal(9);
    });

    it('a server that is not there: request errors, no events, no crash', async () => {
      const url = `${peer.url}/stats`;
      await peer.close();
      const ctx = testSourceContext('eventdb_metrics');
      const sub = buildEventdbMetricsSource(parse({ endpoint: url, scrape_interval_secs: 0.05 }), ctx).subscribe({ error: (e) => expect.fail(String(e)) });
      for (let i = 0; i < 400 && ctx.metric('http_request_errors_total') < 3; i++) await new Promise((r) => setTimeout(r, 10));
      sub.unsubscribe();
      expect(ctx.metric('http_request_errors_total')).to.be.at.least(3);
      peer = await startEventdbPeer({ ...STATS });
    });

    it('the HTTP status is not checked: a 500 with a valid document still yields metrics', async () => {
      const ctx = testSourceContext('eventdb_metrics');
      peer.fault = () => ({ status: 500, body: JSON.stringify(statsDocument(STATS)) });
      const [batch] = await run(ctx, { endpoint: `${peer.url}/stats`, scrape_interval_secs: 60 }, 1);
      expect(batch).to.have.length(9);
    });

    it('a 404 text body is a parse error, not a request error', async () => {
      const ctx = testSourceContext('eventdb_metrics');
      const sub = buildEventdbMetricsSource(parse({ endpoint: `${peer.url}/nope`, scrape_interval_secs: 60 }), ctx).subscribe();
      for (let i = 0; i < 400 && ctx.metric('parse_errors_total') < 1; i++) await new Promise((r) => setTimeout(r, 10));
      sub.unsubscribe();
      expect(ctx.metric('parse_errors_total')).to.equal(1);
      expect(ctx.metric('http_request_errors_total')).to.equal(0);
    });

    /** Scrapes once; resolves with the batch, or with the count of request errors once one is logged. */
    async function scrapeOnce(o: Record<string, unknown>): Promise<{ batch: MetricEvent[] | undefined; requestErrors: number }> {
      const ctx = testSourceContext('eventdb_metrics');
      let batch: MetricEvent[] | undefined;
      const sub = buildEventdbMetricsSource(parse({ endpoint: `${peer.url}/stats`, scrape_interval_secs: 60, ...o }), ctx).subscribe((b) => (batch ??= b as MetricEvent[]));
      try {
        await until(() => batch !== undefined || ctx.metric('http_request_errors_total') > 0, 10_000, 'a scrape or a request error');
      } finally {
        sub.unsubscribe();
      }
      return { batch, requestErrors: ctx.metric('http_request_errors_total') };
    }

    it('proxy.http forwards the scrape through a proxy that tunnels to TLS ports only; no_proxy bypasses it', async () => {
      const proxy = await startForwardProxy();
      try {
        const target = `${peer.url}/stats`;
        const proxied = await scrapeOnce({ proxy: { http: proxy.url } });
        expect(proxied.requestErrors).to.equal(0);
        expect(proxied.batch).to.have.length(9);
        // an absolute-form request for the endpoint, not a CONNECT tunnel the proxy refuses
        expect(proxy.seen).to.deep.equal([`GET ${target}`]);
        expect(proxy.hosts).to.deep.equal([new URL(peer.url).host]);
        expect(peer.requests).to.have.length(1);
        for (const noProxy of [['127.0.0.1'], ['127.0.0.0/8'], ['*']]) {
          const direct = await scrapeOnce({ proxy: { http: proxy.url, no_proxy: noProxy } });
          expect(direct.batch, `no_proxy ${noProxy.join(',')}`).to.have.length(9);
        }
        expect(proxy.seen).to.have.length(1);
        expect(peer.requests).to.have.length(4);
      } finally {
        await proxy.close();
      }
    });

    it('proxy.http carries the scrape through tinyproxy as a forwarded request; proxy.enabled = false and no_proxy go direct', async () => {
      const proxy: TestProxy = await startTinyproxy();
      try {
        const host = new URL(peer.url).host;
        const proxied = { endpoint: `${peer.url}/stats`, scrape_interval_secs: 60, proxy: { http: proxy.url } };
        const [batch] = await run(testSourceContext('eventdb_metrics'), proxied, 1);
        expect(batch).to.have.length(9);
        await proxy.waitForRequestsTo(host, 1);
        // tinyproxy logs a request some time after it served it: a proxied scrape after the direct ones marks where the log is
        await run(testSourceContext('eventdb_metrics'), { ...proxied, proxy: { enabled: false, http: proxy.url } }, 1);
        await run(testSourceContext('eventdb_metrics'), { ...proxied, proxy: { http: proxy.url, no_proxy: ['127.0.0.1'] } }, 1);
        await run(testSourceContext('eventdb_metrics'), proxied, 1);
        await proxy.waitForRequestsTo(host, 2);
        expect(proxy.requestsTo(host)).to.equal(2, proxy.connections().join('\n'));
        const lines = proxy.connections().filter((l) => l.includes(host));
        expect(lines.filter((l) => l.includes(`GET http://${host}/stats `))).to.have.length(2);
        expect(lines.filter((l) => l.includes(`CONNECT ${host}`))).to.deep.equal([]);
        expect(peer.requests).to.have.length(4);
      } finally {
        await proxy.stop();
      }
    });
  });
});

/** A forward proxy run in the test, configured as stock proxies are. */
interface ForwardProxy {
  readonly url: string;
  /** `METHOD target` of every request the proxy received, CONNECT included. */
  readonly seen: string[];
  /** The Host header of every forwarded request. */
  readonly hosts: string[];
  close(): Promise<void>;
}

/**
 * Forwards absolute-form requests and refuses CONNECT to plain-HTTP ports, as squid's and
 * tinyproxy's packaged configurations do (they tunnel to TLS ports only).
 */
async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const hosts: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    hosts.push(req.headers.host ?? '');
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    seen.push(`CONNECT ${req.url}`);
    // the nodes under test listen on plain-HTTP ports, never 443: every tunnel is refused
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    hosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
