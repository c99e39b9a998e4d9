/** Internal events of the `prometheus_remote_write` source: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';

export interface RemoteWriteEvents {
  /** A request was refused (status 4xx/5xx) before its events were emitted; `parse` marks a body that did not decode. */
  refused(status: number, reason: string, parse: boolean): void;
  /** Requests answered, by status. */
  answered(status: number): void;
}

/** Binds the counters of one source. */
export function remoteWriteEvents(ctx: ComponentContext): RemoteWriteEvents {
  const t = ctx.telemetry;
  const parseErrors = t.counter('component_errors_total', { error_type: 'parser_failed', stage: 'receiving' });
  const requestErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' });
  const legacyParse = t.counter('parse_errors_total');
  return {
    refused(status, reason, parse) {
      if (parse) {
        parseErrors.add(1);
        legacyParse.add(1);
      } else requestErrors.add(1);
      ctx.log.warn('Remote-write request refused.', { status, error: reason });
    },
    answered(status) {
      t.counter('http_server_responses_sent_total', { status: String(status) }).add(1);
    },
  };
}
