/**
 * Internal events of the `siem_hec_metrics` sink: each logs and counts together.
 * `http_request_errors_total` counts HTTP exchanges with the collector that failed (a transport
 * error or a status other than 2xx, event requests and acknowledgement queries alike);
 * `requests_received_total` counts the answers the collector gave.
 */
import type { ComponentContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';
import type { AckAnswer } from './acks.js';

/** The sink's own counters, bound once when it is built. */
export class SiemEvents {
  private readonly httpErrors: Counter;
  private readonly answers: Counter;
  private readonly ackErrors: Counter;
  constructor(private readonly ctx: Pick<ComponentContext, 'telemetry' | 'log'>) {
    const t = ctx.telemetry;
    this.httpErrors = t.counter('http_request_errors_total');
    this.answers = t.counter('requests_received_total');
    this.ackErrors = t.counter('component_errors_total', { error_type: 'acknowledgement_failed', stage: 'sending' });
  }

  /** The collector answered (any status). */
  answered(): void {
    this.answers.add();
  }

  /** An exchange failed; the skeleton or the poller logs it. */
  httpFailed(): void {
    this.httpErrors.add();
  }

  /** An acknowledgement query failed; the ids stay pending (`failed`) or are taken as delivered (`unusable`). */
  ackQueryFailed(answer: AckAnswer & { kind: 'failed' | 'unusable' }, pending: number): void {
    this.httpErrors.add();
    if (answer.kind === 'failed') this.ctx.log.warn('Indexer acknowledgement query failed; asking again.', { error: answer.reason, pending_acks: pending });
    else this.ctx.log.warn('The collector cannot acknowledge on this channel; pending batches count as delivered on their 2xx answer.', { error: answer.reason, pending_acks: pending });
  }

  /** An event request's 2xx answer was not JSON: its batch counts as delivered. */
  ackIdUnreadable(body: string): void {
    this.ctx.log.error('Could not read the acknowledgement id of the answer; the batch counts as delivered.', { body: body.slice(0, 200) });
  }

  /** A batch was never reported indexed within `retry_limit` queries. */
  ackTimedOut(events: number, retryLimit: number): void {
    this.ackErrors.add();
    this.ctx.log.error('Indexer acknowledgement not received; events not confirmed.', { events, retry_limit: retryLimit });
  }
}
