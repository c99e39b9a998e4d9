/**
 * The `prometheus_exporter` sink: metrics go into the series store as they arrive (each batch is
 * delivered once stored); `GET /metrics` renders the store in the text exposition format,
 * gzip-compressed when the client accepts it. A sweep every `flush_period_secs` (on the
 * scheduler) drops the series not updated within that period.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import { Observable, type OperatorFunction } from 'rxjs';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch, MetricEvent } from '../../../lib/event.js';
import { type SocketAddress, parseSocketAddress } from '../../../lib/net/socket-address.js';
import { listenerTls } from '../../shared/listener-config.js';
import { distributionStatistic } from '../../shared/metrics/statistics.js';
import { type RenderableMetric, renderExposition } from '../../shared/prometheus/exposition.js';
import { type PromHttpServer, listenHttp } from '../../shared/prometheus/http-server.js';
import { authorizationCheck } from '../../shared/prometheus/options.js';
import { SeriesStore, type StoredMetric } from '../../shared/prometheus/series-store.js';
import type { PrometheusExporterConfig } from './config.js';


/** Content type of the text format Prometheus expects. */
const CONTENT_TYPE = 'text/plain; version=0.0.4';

/** The sink and, for tests, its store and the port it bound. */
export interface ExporterHandle {
  readonly store: SeriesStore;
  /** Resolves with the bound port once listening. */
  readonly listening: Promise<number>;
}

/** Builds the sink; `onStart` receives its handle when it subscribes (tests read the store and the port). */
export function buildPrometheusExporterSink(
  config: PrometheusExporterConfig,
  ctx: SinkContext,
  onStart?: (h: ExporterHandle) => void,
): OperatorFunction<EventBatch, Delivery> {
  const tls = listenerTls(config.tls);
  const address = parseSocketAddress(config.address) as SocketAddress;
  const authorized = authorizationCheck(config.auth);
  const flushPeriodMs = config.flush_period_secs * 1000;
  if (flushPeriodMs === 0) ctx.log.warn('flush_period_secs = 0 disables expiry: the series kept grow with every new one.');
  const render = (store: SeriesStore) =>
    renderExposition(summarized(store.values(), config.quantiles), {
      defaultNamespace: config.default_namespace,
      buckets: config.buckets,
      quantiles: config.quantiles,
    });
  const served = ctx.telemetry.counter('component_sent_bytes_total', { protocol: 'http' });
  const expired = ctx.telemetry.counter('prometheus_exporter_expired_series_total');

  return (source) =>
    new Observable<Delivery>((subscriber) => {
      const store = new SeriesStore({
        distributions: config.distributions_as_summaries ? 'summary' : 'histogram',
        buckets: config.buckets,
        suppressTimestamp: config.suppress_timestamp,
        flushPeriodMs,
      });
      const handle = (req: IncomingMessage, res: ServerResponse) => {
        if (!authorized(req.headers.authorization)) {
          res.writeHead(401, { 'www-authenticate': 'Basic, Bearer' }).end();
          return;
        }
        const path = (req.url ?? '/').split('?')[0];
        if (req.method !== 'GET' || path !== '/metrics') {
          res.writeHead(404).end();
          return;
        }
        const body = Buffer.from(render(store));
        const send = (bytes: Buffer, headers: Record<string, string>) => {
          served.add(bytes.length);
          res.writeHead(200, { 'content-type': CONTENT_TYPE, ...headers }).end(bytes);
        };
        if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
          gzip(body, (err, zipped) => (err ? send(body, {}) : send(zipped, { 'content-encoding': 'gzip' })));
        } else send(body, {});
      };
      let server: PromHttpServer | undefined;
      let closed = false;
      const listening = listenHttp(address, tls, handle).then((s) => {
        if (closed) s.close();
        server = s;
        ctx.log.info('Serving metrics.', { address: config.address, port: s.port });
        return s.port;
      });
      listening.catch((err: unknown) => subscriber.error(new Error(`prometheus_exporter cannot listen on ${config.address}: ${(err as Error).message}`)));
      onStart?.({ store, listening });

      const sweep =
        flushPeriodMs > 0
          ? ctx.scheduler.schedule(function (this: { schedule(s: undefined, d: number): void }) {
              expired.add(store.sweep(ctx.scheduler.now()));
              this.schedule(undefined, flushPeriodMs);
            }, flushPeriodMs)
          : undefined;
      const sub = source.subscribe({
        next(batch) {
          const now = ctx.scheduler.now();
          for (const e of batch) if (e.type === 'metric') store.update(e as MetricEvent, now);
          subscriber.next({ status: 'delivered', events: batch, bytes: 0 });
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        closed = true;
        sub.unsubscribe();
        sweep?.unsubscribe();
        server?.close();
      };
    });
}

/** Stored summaries (distribution samples) as aggregated summaries over `quantiles`, as Vector renders its sketches. */
function* summarized(stored: Iterable<StoredMetric>, quantiles: readonly number[]): Generator<RenderableMetric> {
  for (const s of stored) {
    if (s.value.type !== 'distribution') {
      yield s;
      continue;
    }
    const stat = distributionStatistic(s.value.samples, quantiles);
    yield {
      ...s,
      value: {
        type: 'aggregated_summary',
        quantiles: quantiles.map((quantile, i) => ({ quantile, value: stat?.quantiles[i] ?? 0 })),
        count: stat?.count ?? 0,
        sum: stat?.sum ?? 0,
      },
    };
  }
}
