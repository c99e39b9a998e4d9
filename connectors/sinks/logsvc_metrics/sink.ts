/** The `logsvc_metrics` sink (Vector's `humio_metrics`) as a composition of the request-sink skeleton. */
import { randomUUID } from 'node:crypto';
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { resolveTimezone } from '../../../lib/time/strftime.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { type EncodedEnvelope, type HecRequest, buildHecRequest } from '../../shared/hec/request.js';
import { EVENT_PATH, collectorUrl, createHecService, hecHealthcheck } from '../../shared/hec/service.js';
import type { HttpService } from '../../shared/http/service.js';
import { isRetriableTransportError, statusVerdict } from '../../shared/http/status.js';
import { requestSink } from '../../shared/request-sink.js';
import type { LogsvcMetricsConfig } from './config.js';
import { createLogsvcEncoder } from './encoder.js';

/**
 * The HEC service: `Authorization: Splunk <token>` (the service takes its ingest token so) and a
 * channel header, which the service ignores; it never acknowledges.
 */
const logsvcService = (config: LogsvcMetricsConfig, ctx: Pick<ComponentContext, 'globals'>): HttpService =>
  createHecService({ token: config.token, channel: randomUUID(), tls: config.tls, proxy: config.proxy, headers: config.request.headers }, ctx.globals);

/** Builds the sink; options that cannot work (TLS files) fail here. */
export function buildLogsvcMetricsSink(config: LogsvcMetricsConfig, ctx: SinkContext): OperatorFunction<EventBatch, Delivery> {
  const tz = resolveTimezone(config.timezone ?? ctx.globals.timezone);
  const encoder = createLogsvcEncoder(config, ctx.globals.log_schema, ctx, tz, () => ctx.scheduler.now());
  const compressor = createCompressor(config.compression);
  const encodingHeader = compressor.contentEncoding ? { 'content-encoding': compressor.contentEncoding } : undefined;
  const http = logsvcService(config, ctx);
  const url = collectorUrl(config.endpoint, EVENT_PATH);
  return requestSink<EncodedEnvelope, HecRequest, HttpResponse>(
    {
      encode: encoder.encode,
      build: (items) => buildHecRequest(items, compressor),
      send: (req, signal) => http.send({ method: 'POST', url, body: req.body, headers: encodingHeader }, signal),
      classify: statusVerdict,
      isRetriableError: isRetriableTransportError,
      close: () => http.close(),
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/** As Vector checks: the HEC health check, `GET /services/collector/health/1.0` with the token; only 200 is healthy; never retried. */
export async function logsvcMetricsHealthcheck(config: LogsvcMetricsConfig, ctx: Pick<ComponentContext, 'globals'>): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const http = logsvcService(config, ctx);
  try {
    await hecHealthcheck(http, config.endpoint, config.request.timeout_secs * 1000);
  } finally {
    await http.close();
  }
}
