/**
 * What both transports do with a decoded request body: refuse it while the output gate is
 * closed (the client retries), convert its records, emit them as one batch on the `logs`
 * output, and, with end-to-end acknowledgements, answer only once they are delivered.
 */
import type { Subscriber } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import { BatchNotifier, type DeliveryStatus, type RoutedBatch, attachNotifier } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
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

/** Binds conversion, emission and acknowledgement for one subscriber. */
export function createIngest(ctx: SourceContext, proto: OtlpLogsProto, shape: RecordShape, events: OtlpEvents, subscriber: Subscriber<RoutedBatch>): Ingest {
  const full: Outcome = { kind: 'full' };
  return {
    get isOpen() {
      return ctx.out.isOpen;
    },
    take(protocol, body, json) {
      // checked again after reading the body: a request that waited on the network may find the gate shut
      if (!ctx.out.isOpen) {
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
      const out = converted.events;
      if (out.length === 0) return { kind: 'accepted', partial };
      recordLag(out, shape.timestampKey, now, events);
      if (!ctx.acknowledgements) {
        subscriber.next({ output: LOGS_OUTPUT, events: out });
        return { kind: 'accepted', partial };
      }
      return new Promise<Outcome>((resolve) => {
        attachNotifier(
          out,
          new BatchNotifier((status) => {
            if (status === 'delivered') resolve({ kind: 'accepted', partial });
            else {
              events.deliveryFailed(protocol, status, out.length);
              resolve({ kind: 'undelivered', status });
            }
          }),
        );
        subscriber.next({ output: LOGS_OUTPUT, events: out });
      });
    },
  };
}

/** Per batch: how old each record's time was on arrival. */
function recordLag(out: readonly { fields: Record<string, unknown> }[], key: string, nowMs: number, events: OtlpEvents): void {
  for (let i = 0; i < out.length; i++) {
    const t = out[i]!.fields[key];
    if (t instanceof Timestamp) events.lag.record(Math.max(0, nowMs - t.ms) / 1000);
  }
}
