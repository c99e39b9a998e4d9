/** The `http` sink (Vector's `http`) as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { httpHealthcheck as checkHealth } from '../../shared/http/healthcheck.js';
import type { HttpService } from '../../shared/http/service.js';
import { HttpStatusError, isRetriableTransportError } from '../../shared/http/status.js';
import { routedRequestOptions, routedSend } from '../../shared/routing/index.js';
import { requestSink } from '../../shared/request-sink.js';
import type { HttpSinkConfig } from './config.js';
import { createHttpEncoder } from './encoder.js';
import { type HttpSinkRequest, buildRequest } from './request.js';
import { strategyVerdict } from './retry.js';
import { createSinkHttpService, httpTarget } from './service.js';

/** Builds the sink; options that cannot work (TLS files, compression) fail here. */
export function buildHttpSink(config: HttpSinkConfig, ctx: SinkContext, service?: HttpService): OperatorFunction<EventBatch, Delivery> {
  const encoder = createHttpEncoder(config, ctx.globals.log_schema);
  const compressor = createCompressor(config.compression);
  const http = service ?? createSinkHttpService(config, ctx.globals, encoder.contentType, compressor);
  const { urls } = httpTarget(config);
  const method = config.method;
  const timeoutMs = config.request.timeout_secs * 1000;
  const send =
    config.routing === undefined || urls.length === 1
      ? (req: HttpSinkRequest, signal: AbortSignal) => http.send({ method, url: urls[0]!, body: req.body }, signal)
      : routedSend({ ...config.routing, endpoints: urls }, ctx, timeoutMs, (url: string, req: HttpSinkRequest, signal) => http.send({ method, url, body: req.body }, signal), httpHealth);
  const badRequests = ctx.telemetry.counter('http_bad_requests_total');
  // retry_strategy "none" retries nothing, timeouts and connection errors included
  const base = config.retry_strategy.type === 'none' ? { ...config.request, retry_attempts: 0 } : config.request;
  const request = routedRequestOptions(base, config.routing);
  return requestSink<ReturnType<typeof encoder.encode>, HttpSinkRequest, HttpResponse>(
    {
      encode: encoder.encode,
      build: (items) => buildRequest(items, encoder, compressor),
      send,
      finished: (req) => encoder.recycle(req.body),
      classify: strategyVerdict(config.retry_strategy),
      isRetriableError: isRetriableTransportError,
      attemptFailed: (err) => err instanceof HttpStatusError && err.status === 400 && badRequests.add(),
      close: () => (service ? undefined : http.close()),
    },
    { limits: batchLimits(config.batch), request, rejectOversize: true },
    ctx,
  );
}

/** Vector's health rule for HTTP endpoints: a 5xx answer is a failure, a 2xx a success, anything else says nothing. */
const httpHealth = (res: HttpResponse): boolean | undefined => (res.status >= 500 ? false : res.status >= 200 && res.status < 300 ? true : undefined);

/** As Vector checks: only with `healthcheck.uri`; `HEAD` must answer exactly 200; never retried. */
export async function httpHealthcheck(config: HttpSinkConfig, ctx: Pick<SinkContext, 'globals'>, service?: HttpService): Promise<void> {
  if (config.healthcheck.enabled === false || !config.healthcheck.uri) return;
  const http = service ?? createSinkHttpService(config, ctx.globals, 'text/plain', createCompressor('none'));
  const { authorization } = httpTarget(config);
  try {
    await checkHealth(http, { method: 'HEAD', url: config.healthcheck.uri, headers: authorization ? { authorization } : {}, timeoutMs: config.request.timeout_secs * 1000 });
  } finally {
    if (!service) await http.close();
  }
}
