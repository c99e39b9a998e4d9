/** The `tsdb_metrics` sink (Vector's `influxdb_metrics`) as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { httpHealthcheck } from '../../shared/http/healthcheck.js';
import type { HttpService } from '../../shared/http/service.js';
import { isRetriableTransportError, statusVerdict } from '../../shared/http/status.js';
import { requestSink } from '../../shared/request-sink.js';
import type { TsdbMetricsConfig } from './config.js';
import { type EncodedMetric, createTsdbEncoder } from './encoder.js';
import { type TsdbRequest, buildRequest } from './request.js';
import { createTsdbService, healthUrl, writeUrl } from './service.js';

/** What a batch with nothing to write (only first absolute values) answers, without a request. */
const NOTHING_TO_WRITE: HttpResponse = { status: 204, headers: new Headers(), body: '' };

/** Builds the sink; options that cannot work (TLS files) fail here. */
export function buildTsdbMetricsSink(config: TsdbMetricsConfig, ctx: SinkContext, service?: HttpService): OperatorFunction<EventBatch, Delivery> {
  const encoder = createTsdbEncoder(config, () => ctx.scheduler.now());
  const http = service ?? createTsdbService(config, ctx.globals);
  const url = writeUrl(config, encoder.precision);
  return requestSink<EncodedMetric, TsdbRequest, HttpResponse>(
    {
      encode: encoder.encode,
      build: (items) => buildRequest(items, encoder),
      send: (req, signal) => (req.body.length === 0 ? Promise.resolve(NOTHING_TO_WRITE) : http.send({ method: 'POST', url, body: req.body }, signal)),
      classify: statusVerdict,
      isRetriableError: isRetriableTransportError,
      close: () => (service ? undefined : http.close()),
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/** One GET of `/ping` (generation 1) or `/health` (generation 2), without credentials; 200 or 204 is healthy; never retried. */
export async function tsdbMetricsHealthcheck(config: TsdbMetricsConfig, ctx: Pick<ComponentContext, 'globals'>, service?: HttpService): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const http = service ?? createTsdbService(config, ctx.globals, 'health');
  try {
    await httpHealthcheck(http, { method: 'GET', url: healthUrl(config), ok: (s) => s === 200 || s === 204, timeoutMs: config.request.timeout_secs * 1000 });
  } finally {
    if (!service) await http.close();
  }
}
