/** The `siem_hec_metrics` sink (Vector's `splunk_hec_metrics`) as a composition of the request-sink skeleton. */
import { randomUUID } from 'node:crypto';
import { type OperatorFunction, pipe, tap } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, DeliveryStatus, EventBatch } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { resolveTimezone } from '../../../lib/time/strftime.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { type HecRequest, type EncodedEnvelope, buildHecRequest } from '../../shared/hec/request.js';
import { ACK_PATH, EVENT_PATH, collectorUrl, createHecService, hecHealthcheck } from '../../shared/hec/service.js';
import type { HttpService } from '../../shared/http/service.js';
import { isRetriableTransportError, statusVerdict } from '../../shared/http/status.js';
import { requestSink } from '../../shared/request-sink.js';
import { AckPoller, AckSlots, ackIdOf } from './acks.js';
import type { SiemHecMetricsConfig } from './config.js';
import { createSiemEncoder } from './encoder.js';
import { SiemEvents } from './events.js';

/** The HTTP service with the token and a channel (the sink's own; a fresh one for the health check). */
const siemService = (config: SiemHecMetricsConfig, ctx: Pick<ComponentContext, 'globals'>, channel: string = randomUUID()): HttpService =>
  createHecService({ token: config.default_token, channel, tls: config.tls, proxy: config.proxy, headers: config.request.headers }, ctx.globals);

/** Builds the sink; options that cannot work (TLS files) fail here. */
export function buildSiemHecMetricsSink(config: SiemHecMetricsConfig, ctx: SinkContext): OperatorFunction<EventBatch, Delivery> {
  // one channel per sink instance, on every request, acknowledgements or not
  const channel = randomUUID();
  const http = siemService(config, ctx, channel);
  const events = new SiemEvents(ctx);
  const encoder = createSiemEncoder(config, ctx, resolveTimezone(ctx.globals.timezone), () => ctx.scheduler.now());
  const compressor = createCompressor(config.compression);
  const encodingHeader = compressor.contentEncoding ? { 'content-encoding': compressor.contentEncoding } : undefined;
  const url = collectorUrl(config.endpoint, EVENT_PATH);
  const ackUrl = `${collectorUrl(config.endpoint, ACK_PATH)}?channel=${channel}`;
  const a = config.acknowledgements;
  const timeoutMs = config.request.timeout_secs * 1000;

  const answered = (res: HttpResponse): HttpResponse => {
    events.answered();
    return res;
  };
  const poller = a.indexer_acknowledgements_enabled
    ? new AckPoller(
        { queryIntervalMs: a.query_interval * 1000, retryLimit: a.retry_limit, timeoutMs },
        (ids, signal) => http.send({ method: 'POST', url: ackUrl, body: Buffer.from(JSON.stringify({ acks: ids })) }, signal).then(answered),
        ctx.scheduler,
        { queryFailed: (answer, pending) => events.ackQueryFailed(answer, pending) },
      )
    : undefined;
  const slots = poller ? new AckSlots(a.max_pending_acks) : undefined;

  /** The final status of an accepted request: its ack id's, or delivered when the answer has none. */
  const confirm = async (res: HttpResponse, req: HecRequest): Promise<DeliveryStatus> => {
    const id = ackIdOf(res.body);
    if (id === 'invalid') events.ackIdUnreadable(res.body);
    // a token without indexer acknowledgement answers without an id: its 2xx is the confirmation
    if (id === undefined || id === 'invalid') return 'delivered';
    const status = await poller!.wait(id);
    if (status !== 'delivered') events.ackTimedOut(req.events.length, a.retry_limit);
    return status;
  };

  const sink = requestSink<EncodedEnvelope, HecRequest, HttpResponse>(
    {
      encode: encoder.encode,
      build: async (items) => {
        const req = await buildHecRequest(items, compressor);
        // the slot is taken last: nothing after it can fail before the request settles
        if (slots) await slots.acquire(req.events);
        return req;
      },
      send: (req, signal) => http.send({ method: 'POST', url, body: req.body, headers: encodingHeader }, signal).then(answered),
      classify: statusVerdict,
      isRetriableError: isRetriableTransportError,
      confirm: poller ? confirm : undefined,
      attemptFailed: () => events.httpFailed(),
      close: () => {
        poller?.close();
        return http.close();
      },
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
  // every request ends in exactly one Delivery carrying its own events array: that settles its slot
  return slots ? pipe(sink, tap((d) => slots.release(d.events))) : sink;
}

/** As Vector checks: `GET /services/collector/health/1.0` with the token; only 200 is healthy; never retried. */
export async function siemHecMetricsHealthcheck(config: SiemHecMetricsConfig, ctx: Pick<ComponentContext, 'globals'>, service?: HttpService): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const http = service ?? siemService(config, ctx);
  try {
    await hecHealthcheck(http, config.endpoint, config.request.timeout_secs * 1000);
  } finally {
    if (!service) await http.close();
  }
}
