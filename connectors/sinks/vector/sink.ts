/**
 * The `vector` sink (Vector's `vector`, protocol version 2) on the request skeleton: each event
 * is encoded once into its `EventWrapper` bytes, whose length counts against `batch.max_bytes`
 * as Vector counts it; a batch's request is those bytes framed as one `PushEventsRequest`.
 * Failed calls are retried by gRPC status as Vector's sink retries them (every code but the
 * request's own faults and DATA_LOSS). Requests go to one endpoint; the client is per endpoint,
 * so that several could be spread over later.
 */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, Event, EventBatch } from '../../../lib/event.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { type Encoded, type SinkRequest, requestSink } from '../../shared/request-sink.js';
import { WrapperEncoder, pushEventsRequest } from '../../shared/vector/encode.js';
import type { VectorSinkConfig } from './config.js';
import { type VectorEndpoint, parseEndpoint } from './endpoint.js';
import { type VectorClient, createVectorClient, isRetriableGrpcError } from './service.js';

interface EncodedWrapper extends Encoded {
  readonly wrapper: Buffer;
}

interface PushRequest extends SinkRequest {
  readonly body: Buffer;
}

const endpointOf = (config: VectorSinkConfig): VectorEndpoint => parseEndpoint(config.address, config.tls?.enabled === true) as VectorEndpoint;

/** Builds the sink; TLS files are read now, so a bad one is a build error. */
export function buildVectorSink(config: VectorSinkConfig, ctx: SinkContext, client: VectorClient = createVectorClient(config, endpointOf(config))): OperatorFunction<EventBatch, Delivery> {
  const encoder = new WrapperEncoder();
  return requestSink<EncodedWrapper, PushRequest, void>(
    {
      encode: (event: Event) => {
        const wrapper = encoder.encode(event);
        return { event, size: wrapper.length, key: undefined, wrapper };
      },
      build: (items) => {
        const wrappers = new Array<Buffer>(items.length);
        const events = new Array<Event>(items.length);
        for (let i = 0; i < items.length; i++) {
          wrappers[i] = items[i]!.wrapper;
          events[i] = items[i]!.event;
        }
        const body = pushEventsRequest(wrappers);
        return { events, body, bytes: body.length };
      },
      send: (req, signal) => client.push(req.body, signal),
      classify: () => ({ kind: 'ok' }),
      isRetriableError: isRetriableGrpcError,
      close: () => client.close(),
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/** Vector's check: one HealthCheck call, which must answer SERVING; never retried. */
export async function vectorHealthcheck(config: VectorSinkConfig, _ctx: ComponentContext, client?: VectorClient): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const c = client ?? createVectorClient(config, endpointOf(config));
  try {
    const status = await c.health(config.request.timeout_secs * 1000);
    if (status !== 0) throw new Error(`the vector endpoint ${c.endpoint.address} is not serving (status ${status === 1 ? 'NOT_SERVING' : status})`);
  } finally {
    if (client === undefined) c.close();
  }
}
