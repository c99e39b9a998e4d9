/**
 * What both transports do with a decoded request body: hold it while the output gate is closed
 * (refused only past the hold timeout, and the client retries), convert its records, emit them
 * as one batch on the `logs` output, and, with end-to-end acknowledgements, answer only once
 * they are delivered.
 */
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus } from '../../../lib/event.js';
import { type HoldWhileClosed, REQUEST_HOLD_TIMEOUT_MS, type SourceOutput } from '../../shared/source/index.js';
import type { OtlpEvents, OtlpProtocol } from './events.js';
import type { OtlpLogsProto, PartialSuccess } from './proto.js';
import { OtlpShapeError, type RecordShape, convertRequest } from './record.js';

/** The named output the events leave through (`<id>.logs`). */
export const LOGS_OUTPUT = 'logs';

/** How a request ended, for the transport to answer in its own terms. */
export type Outcome =
  | { readonly kind: 'accepted'; readonly partial: PartialSuccess | undefined }
  | { readonly kind: 'full' }
  | { readonly kind: 'abandoned' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'undelivered'; readonly status: Exclude<DeliveryStatus, 'delivered'> };

/** Takes in decoded request bodies for one source. */
export interface Ingest {
  /**
   * Converts and emits a body (protobuf bytes, or parsed OTLP/JSON). While the output gate is
   * closed the body is held: `full` past the hold timeout, `abandoned` when `gone` aborts first
   * (the client went away; nothing was emitted).
   */
  take(protocol: OtlpProtocol, body: Buffer | unknown, json: boolean, gone?: AbortSignal): Outcome | Promise<Outcome>;
}

const FULL: Outcome = { kind: 'full' };
const ABANDONED: Outcome = { kind: 'abandoned' };

/** Binds holding, conversion, emission and acknowledgement for one source subscription. */
export function createIngest(ctx: SourceContext, proto: OtlpLogsProto, shape: RecordShape, events: OtlpEvents, out: SourceOutput, hold: HoldWhileClosed): Ingest {
  return {
    take(protocol, body, json, gone) {
      const admitted = hold.wait(REQUEST_HOLD_TIMEOUT_MS, gone);
      if (admitted === true) return emit(protocol, body, json);
      events.held(protocol);
      return admitted.then((ok) => {
        if (ok) return emit(protocol, body, json);
        if (gone?.aborted === true) {
          events.abandoned(protocol);
          return ABANDONED;
        }
        events.backpressure(protocol);
        return FULL;
      });
    },
  };

  /** Runs synchronously once admitted, so the emission lands before the next held request's turn. */
  function emit(protocol: OtlpProtocol, body: Buffer | unknown, json: boolean): Outcome | Promise<Outcome> {
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
  }

  function undelivered(protocol: OtlpProtocol, status: Exclude<DeliveryStatus, 'delivered'>, count: number): Outcome {
    events.deliveryFailed(protocol, status, count);
    return { kind: 'undelivered', status };
  }
}
