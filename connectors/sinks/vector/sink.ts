/**
 * The `vector` sink (Vector's `vector`, protocol version 2) on the request skeleton: each event
 * is encoded once into its `EventWrapper` bytes, whose length counts against `batch.max_bytes`
 * as Vector counts it; a batch's request is those bytes framed as one `PushEventsRequest`.
 * Failed calls are retried by gRPC status as Vector's sink retries them (every code but the
 * request's own faults and DATA_LOSS). With `routing`, each endpoint has its own client and
 * requests spread over them as the strategy says (connectors/shared/routing/).
 */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, Event, EventBatch } from '../../../lib/event.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { type Encoded, type SinkRequest, requestSink } from '../../shared/request-sink.js';
import { healthcheckTargets, routedRequestOptions, routedSend } from '../../shared/routing/index.js';
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

const endpointOf = (config: VectorSinkConfig, address: string): VectorEndpoint => parseEndpoint(address, config.tls?.enabled === true) as VectorEndpoint;

/** The addresses the sink sends to: `address`, or `routing.endpoints`. */
const addressesOf = (config: VectorSinkConfig): readonly string[] => (config.address !== undefined ? [config.address] : config.routing!.endpoints);

/** One client per endpoint; a test may hand in the clients. */
const clientsOf = (config: VectorSinkConfig): VectorClient[] => addressesOf(config).map((a) => createVectorClient(config, endpointOf(config, a)));

/** Builds the sink; TLS files are read now, so a bad one is a build error. */
export function buildVectorSink(config: VectorSinkConfig, ctx: SinkContext, clients: VectorClient | VectorClient[] = clientsOf(config)): OperatorFunction<EventBatch, Delivery> {
  const encoder = new WrapperEncoder();
  const all = Array.isArray(clients) ? clients : [clients];
  const send =
    config.routing === undefined || all.length === 1
      ? (req: PushRequest, signal: AbortSignal) => all[0]!.push(req.body, signal)
      : routedSend(
          { ...config.routing, endpoints: all },
          ctx,
          config.request.timeout_secs * 1000,
          (client: VectorClient, req: PushRequest, signal) => client.push(req.body, signal),
          () => true,
          (client) => client.endpoint.address,
        );
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
      send,
      classify: () => ({ kind: 'ok' }),
      isRetriableError: isRetriableGrpcError,
      close: () => {
        for (const c of all) c.close();
      },
    },
    { limits: batchLimits(config.batch), request: routedRequestOptions(config.request, config.routing) },
    ctx,
  );
}

/** Vector's check: one HealthCheck call per endpoint it asks (every one when load balancing, the first with a failover strategy), which must answer SERVING; never retried. */
export async function vectorHealthcheck(config: VectorSinkConfig, _ctx: ComponentContext, client?: VectorClient): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const addresses = config.routing === undefined ? addressesOf(config) : healthcheckTargets(config.routing);
  const clients = client !== undefined ? [client] : addresses.map((a) => createVectorClient(config, endpointOf(config, a)));
  try {
    await Promise.all(
      clients.map(async (c) => {
        const status = await c.health(config.request.timeout_secs * 1000);
        if (status !== 0) throw new Error(`the vector endpoint ${c.endpoint.address} is not serving (status ${status === 1 ? 'NOT_SERVING' : status})`);
      }),
    );
  } finally {
    if (client === undefined) for (const c of clients) c.close();
  }
}
