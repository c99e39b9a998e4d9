/** Internal events of the `syslog` source: each logs and counts together. */
import type { SourceContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';

/** Events bound once per source. */
export interface SyslogEvents {
  /** `receive_buffer_bytes` on tcp: logged once at build, as Node.js cannot size accepted sockets. */
  receiveBufferIgnored(bytes: number): void;
  /** The UDP socket failed to receive (Vector's `socket_receive` error); the source goes on. */
  receiveFailed(err: Error): void;
}

/** Binds the counters of one source. */
export function syslogEvents(ctx: SourceContext): SyslogEvents {
  const receiveErrors: Counter = ctx.telemetry.counter('component_errors_total', { error_code: 'socket_receive', error_type: 'reader_failed', stage: 'receiving' });
  return {
    receiveBufferIgnored(bytes) {
      ctx.log.warn('receive_buffer_bytes has no effect on tcp: Node.js cannot set SO_RCVBUF on accepted TCP sockets.', { receive_buffer_bytes: bytes });
    },
    receiveFailed(err) {
      receiveErrors.add(1);
      // the logger rate-limits repeats of one message
      ctx.log.warn('Error receiving data.', { error: err.message, mode: 'udp' });
    },
  };
}
