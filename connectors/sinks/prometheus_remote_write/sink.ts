/** The `prometheus_remote_write` sink as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { TemplateError } from '../../../lib/template.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { cloudwCredentials } from '../../shared/cloudw/credentials.js';
import { signV4 } from '../../shared/cloudw/sigv4.js';
import { authHeader } from '../../shared/http/auth.js';
import { httpHealthcheck } from '../../shared/http/healthcheck.js';
import { type HttpService, createHttpService } from '../../shared/http/service.js';
import { isRetriableTransportError, statusVerdict } from '../../shared/http/status.js';
import { requestSink } from '../../shared/request-sink.js';
import type { PrometheusRemoteWriteSinkConfig } from './config.js';
import { type EncodedMetric, createRemoteWriteEncoder } from './encoder.js';
import { type RemoteWriteRequest, buildRemoteWriteRequest } from './request.js';

/** The service that signs for a managed Prometheus (Vector signs remote writes for `aps`). */
const SIGNING_SERVICE = 'aps';

/** The fixed headers (the protocol's, the credentials and `request.headers`), and SigV4 signing with `auth.strategy = "aws"`. */
function createService(config: PrometheusRemoteWriteSinkConfig, ctx: Pick<ComponentContext, 'globals' | 'scheduler'>): HttpService {
  const auth = config.auth?.strategy === 'basic' || config.auth?.strategy === 'bearer' ? authHeader(config.auth) : undefined;
  const aws = config.auth?.strategy === 'aws' ? config.auth.credentials : undefined;
  const credentials = aws === undefined ? undefined : cloudwCredentials(aws);
  const region = config.aws?.region ?? '';
  return createHttpService({
    sign: credentials === undefined ? undefined : async (req) => signV4(req, await credentials(), region, SIGNING_SERVICE, ctx.scheduler.now()),
    tls: config.tls,
    proxy: config.proxy,
    globals: ctx.globals,
    headers: [
      {
        'content-type': 'application/x-protobuf',
        'x-prometheus-remote-write-version': '0.1.0',
        'content-encoding': config.compression,
      },
      auth === undefined ? undefined : { authorization: auth },
      config.request.headers,
    ],
  });
}

export function buildPrometheusRemoteWriteSink(config: PrometheusRemoteWriteSinkConfig, ctx: SinkContext, service?: HttpService): OperatorFunction<EventBatch, Delivery> {
  const now = () => ctx.scheduler.now();
  const encoder = createRemoteWriteEncoder(config, now);
  const http = service ?? createService(config, ctx);
  return requestSink<EncodedMetric, RemoteWriteRequest, HttpResponse>(
    {
      encode: encoder.encode,
      // one batch per tenant, as in Vector
      partition: config.tenant_id === undefined ? undefined : (item) => {
        if (item.tenant instanceof TemplateError) throw item.tenant;
        return item.tenant!;
      },
      build: (items, key) => buildRemoteWriteRequest(items, key, config, Math.floor(now())),
      send: (req, signal) => http.send({ method: 'POST', url: config.endpoint, body: req.body, headers: req.tenant === undefined ? undefined : { 'x-scope-orgid': req.tenant } }, signal),
      classify: statusVerdict,
      isRetriableError: isRetriableTransportError,
      close: () => (service ? undefined : http.close()),
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/** As Vector checks: GET the endpoint (or `healthcheck.uri`) with the sink's headers; 200 is healthy. */
export async function prometheusRemoteWriteHealthcheck(config: PrometheusRemoteWriteSinkConfig, ctx: Pick<ComponentContext, 'globals' | 'scheduler'>, service?: HttpService): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const http = service ?? createService(config, ctx);
  try {
    await httpHealthcheck(http, { method: 'GET', url: config.healthcheck.uri ?? config.endpoint, timeoutMs: config.request.timeout_secs * 1000 });
  } finally {
    if (!service) await http.close();
  }
}
