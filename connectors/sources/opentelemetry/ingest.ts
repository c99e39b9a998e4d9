/**
 * What both transports do with a decoded request body: refuse it while the output gate is
 * closed (the client retries), convert its records, emit them as one batch on the `logs`
 * output, and, with end-to-end acknowledgements, answer only once they are delivered.
 */
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus } from '../../../lib/event.js';
import type { SourceOutput } from '../../shared/source/index.js';
import type { OtlpEvents, OtlpProtocol } from './events.js';
import type { OtlpLogsProto, PartialSuccess } from './proto.js';
import { OtlpShapeError, type RecordShape, convertRequest } from './record.js';

/** The named output the events leave through (`<id>.logs`). */
export const LOGS_OUTPUT = 'logs';

/** How a request ended, for the transport to answer in its own terms. */
export type Outcome =
  | { readonly kind: 'accepted'; readonly partial: PartialSuccess | undefined }
  | { readonly kind: 'full' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'undelivered'; readonly status: Exclude<DeliveryStatus, 'delivered'> };

/** Takes in decoded request bodies for one source. */
export interface Ingest {
  /** Whether a new request can be taken now; false while the output gate is closed. */
  readonly isOpen: boolean;
  /** Converts and emits a body (protobuf bytes, or parsed OTLP/JSON). */
  take(protocol: OtlpProtocol, body: Buffer | unknown, json: boolean): Outcome | Promise<Outcome>;
}

/** Binds conversion, emission and acknowledgement for one source subscription. */
export function createIngest(ctx: SourceContext, proto: OtlpLogsProto, shape: RecordShape, events: OtlpEvents, out: SourceOutput): Ingest {
  const full: Outcome = { kind: 'full' };
  return {
    get isOpen() {
      return out.isOpen;
    },
    take(protocol, body, json) {
      // checked again after reading the body: a request that waited on the network may find the gate shut
      if (!out.isOpen) {
        events.backpressure(protocol);
        return full;
      }
      let request: unknown = body;
      if (!json) {
        try {
          request = proto.request.decode(body as Buffer);
        } catch (err) {
          return { kind: 'invalid', reason: `Could not decode request: ${(err as Error).message}` };
        }
      }
      const now = ctx.scheduler.now();
      let converted;
      try {
        converted = convertRequest(shape, request, json, now);
      } catch (err) {
        if (err instanceof OtlpShapeError) return { kind: 'invalid', reason: `Could not decode request: ${err.message}` };
        throw err;
      }
      const partial = converted.rejected > 0 ? { rejected: converted.rejected, message: converted.reason } : undefined;
      if (partial !== undefined) events.recordsRejected(protocol, partial.rejected, partial.message);
      const batch = converted.events;
      const accepted: Outcome = { kind: 'accepted', partial };
      const status = out.emitAwait(batch);
      if (status === 'delivered') return accepted;
      return typeof status === 'string'
        ? undelivered(protocol, status, batch.length)
        : status.then((s) => (s === 'delivered' ? accepted : undelivered(protocol, s, batch.length)));
    },
  };

  function undelivered(protocol: OtlpProtocol, status: Exclude<DeliveryStatus, 'delivered'>, count: number): Outcome {
    events.deliveryFailed(protocol, status, count);
    return { kind: 'undelivered', status };
  }
}
