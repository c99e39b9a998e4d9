/** The `labelstore` sink (Vector's `loki`) as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { TemplateError } from '../../../lib/template.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { httpHealthcheck } from '../../shared/http/healthcheck.js';
import type { HttpService } from '../../shared/http/service.js';
import { isRetriableTransportError, statusVerdict } from '../../shared/http/status.js';
import { requestSink } from '../../shared/request-sink.js';
import type { LabelstoreConfig } from './config.js';
import { type Entry, createLabelstoreEncoder } from './encoder.js';
import { LabelstoreEvents } from './events.js';
import { createOrderer } from './ordering.js';
import { type BodyFormat, type LabelstoreRequest, buildRequest, jsonBody, protobufSnappy } from './request.js';
import { createLabelstoreService, labelstoreTarget } from './service.js';

/** The body form `compression` selects: protobuf in raw snappy, or JSON plain, gzipped or zlib-deflated. */
export const bodyFormat = (compression: LabelstoreConfig['compression']): BodyFormat =>
  compression === 'snappy' ? protobufSnappy : jsonBody(createCompressor(compression));

/**
 * The request options the sink runs with: `drop` and `rewrite_timestamp` keep per-stream state that
 * needs requests built and sent one at a time, so they run with concurrency 1 (as in Vector).
 */
export function effectiveRequest(config: LabelstoreConfig, ctx: Pick<ComponentContext, 'log'>): LabelstoreConfig['request'] {
  const r = config.request;
  if (config.out_of_order_action === 'accept' || r.concurrency === 'none' || r.concurrency === 1) return r;
  ctx.log.warn('request.concurrency is 1 while out_of_order_action is not "accept": entries of a stream must reach the store in order.', {
    configured: r.concurrency,
    out_of_order_action: config.out_of_order_action,
  });
  return { ...r, concurrency: 1 };
}

/** Builds the sink; options that cannot work (TLS files) fail here. */
export function buildLabelstoreSink(config: LabelstoreConfig, ctx: SinkContext, service?: HttpService): OperatorFunction<EventBatch, Delivery> {
  const events = new LabelstoreEvents(ctx);
  const encoder = createLabelstoreEncoder(config, () => ctx.scheduler.now(), events, ctx.globals.log_schema);
  const order = createOrderer(config.out_of_order_action, events);
  const format = bodyFormat(config.compression);
  const http = service ?? createLabelstoreService(config, ctx.globals, format);
  const { push } = labelstoreTarget(config);
  return requestSink<Entry, LabelstoreRequest, HttpResponse>(
    {
      encode: encoder.encode,
      // batches are per tenant (as in Vector); an event whose tenant does not render is rejected
      partition:
        config.tenant_id === undefined
          ? undefined
          : (item) => {
              if (item.tenant instanceof TemplateError) throw item.tenant;
              return item.tenant;
            },
      build: (items, key) => buildRequest(items, key ?? '', order, format),
      send: (req, signal) => http.send({ method: 'POST', url: push, body: req.body, headers: req.tenant ? { 'x-scope-orgid': req.tenant } : undefined }, signal),
      classify: statusVerdict,
      isRetriableError: isRetriableTransportError,
      close: () => (service ? undefined : http.close()),
    },
    { limits: batchLimits(config.batch), request: effectiveRequest(config, ctx) },
    ctx,
  );
}

/** As Vector checks: `GET <endpoint>/ready`, and `GET <endpoint>/` when that is 404; healthy only on 200; never retried. */
export async function labelstoreHealthcheck(config: LabelstoreConfig, ctx: Pick<ComponentContext, 'globals'>, service?: HttpService): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const http = service ?? createLabelstoreService(config, ctx.globals);
  const { ready, root, authorization } = labelstoreTarget(config);
  const headers: Record<string, string> = authorization ? { authorization } : {};
  const timeoutMs = config.request.timeout_secs * 1000;
  try {
    const res = await http.send({ method: 'GET', url: ready, headers }, AbortSignal.timeout(timeoutMs));
    // a store without /ready (an older version, a gateway) is asked at its root instead
    if (res.status === 404) await httpHealthcheck(http, { method: 'GET', url: root, headers, timeoutMs });
    else if (res.status !== 200) throw new Error(`health check GET ${ready} answered ${res.status}${res.body ? `: ${res.body.slice(0, 200)}` : ''}`);
  } finally {
    if (!service) await http.close();
  }
}
