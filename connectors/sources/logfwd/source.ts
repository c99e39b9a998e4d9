/**
 * The `logfwd` source: a fluent forward protocol listener (connectors/shared tcp-listener.ts)
 * decoding each read into one batch. Frames may span reads; the bytes held for one incomplete
 * frame are capped by the global `max_decompressed_bytes` (100 MiB by default, as in Vector),
 * and so is a gzip blob once inflated. A frame that cannot be decoded is counted and its
 * connection closed; other connections go on. `chunk` options are answered with `{ack: chunk}`
 * once the read's events are in the buffer, or, with end-to-end acknowledgements, once they are
 * delivered (`{}` and the connection closed when they are not).
 */
import type { TlsOptions } from 'node:tls';
import { Observable } from 'rxjs';
import { receivedBytesCounter } from '../../../lib/codecs/index.js';
import type { SourceContext } from '../../../lib/component.js';
import { BatchNotifier, type DeliveryStatus, type LogEvent, attachNotifier } from '../../../lib/event.js';
import { type Path, parsePath, setPath } from '../../../lib/path.js';
import { Timestamp } from '../../../lib/value.js';
import { type ListenTarget, parseListenAddress } from '../../shared/listen-address.js';
import { listenerTls } from '../../shared/listener-config.js';
import { type Connection, streamConnections } from '../../shared/tcp-listener.js';
import type { LogfwdSourceConfig } from './config.js';
import { ForwardDecodeError, type RecordSink, createForwardDecoder } from './decode.js';
import { type LogfwdEvents, logfwdEvents } from './events.js';
import { createUnpackr, failedAck, packAck } from './msgpack.js';
import { type RecordShape, recordEvent } from './record.js';

/** Seconds connections get to finish after shutdown before they are destroyed (Vector's 30 s). */
const SHUTDOWN_TIMEOUT_SECS = 30;

/** Builds the source; unsubscribing closes everything at once, `shutdown$` drains gracefully. */
export function buildLogfwdSource(config: LogfwdSourceConfig, ctx: SourceContext): Observable<LogEvent[]> {
  const tls = listenerTls(config.tls); // files read at build: a bad certificate is a build error
  if (config.acknowledgements.enabled !== undefined)
    ctx.log.warn('acknowledgements.enabled on the logfwd source is deprecated and has no effect; enable acknowledgements globally or on the sinks.');
  const target = parseListenAddress(config.address, { systemd: true }) as ListenTarget;
  // Node asks for a client certificate only when verify_certificate is on: no subject otherwise
  const metadataKey = tls?.requestCert && config.tls?.client_metadata_key !== undefined ? parsePath(config.tls.client_metadata_key) : undefined;
  const schema = ctx.globals.log_schema;
  const shape: RecordShape = { sourceId: ctx.id, sourceTypeKey: schema.source_type_key, timestampKey: schema.timestamp_key, hostKey: schema.host_key };
  const limit = ctx.globals.max_decompressed_bytes;
  return new Observable<LogEvent[]>((subscriber) => {
    const unpackr = createUnpackr();
    const events = logfwdEvents(ctx);
    const receivedBytes = receivedBytesCounter(ctx, { protocol: 'tcp' });
    const lag = ctx.telemetry.histogram('source_lag_time_seconds');
    const listener = streamConnections(ctx, {
      target,
      connectionLimit: config.connection_limit,
      keepaliveSecs: config.keepalive?.time_secs,
      tls: tls as TlsOptions | undefined,
      shutdownTimeoutSecs: SHUTDOWN_TIMEOUT_SECS,
    });
    return listener.subscribe({
      next: (conn) => {
        const decoder = createForwardDecoder(unpackr, { maxFrameBytes: limit, maxDecompressedBytes: limit });
        const host = conn.peerHost;
        const subject = metadataKey !== undefined ? conn.clientSubject : undefined;
        const sock = conn.socket;
        let batch: LogEvent[] = [];
        const onRecord: RecordSink = (tag, time, record) => {
          batch.push(recordEvent(shape, tag, time, record, host));
        };
        let pendingAcks = 0;
        let broken = false;
        const close = () => {
          if (!sock.destroyed) sock.end(() => sock.destroy());
        };
        const settled = (chunks: string[]) => (status: DeliveryStatus) => {
          pendingAcks--;
          if (status === 'delivered') writeAcks(sock, chunks);
          else {
            events.deliveryFailed(status, chunks.length, host);
            for (let i = 0; i < chunks.length; i++) if (sock.writable) sock.write(failedAck());
            broken = true;
            sock.pause();
          }
          if (broken && pendingAcks === 0) close();
        };
        const fail = (err: unknown) => {
          // whatever went wrong with this connection's input ends this connection only
          events.decodeFailed(err instanceof ForwardDecodeError ? err : new ForwardDecodeError(String((err as Error)?.message ?? err), Buffer.alloc(0)), host);
          broken = true;
          sock.pause();
          if (pendingAcks === 0) close();
        };
        sock.on('data', (chunk: Buffer) => {
          if (broken) return;
          receivedBytes.add(chunk.length);
          const chunks: string[] = [];
          let error: unknown;
          try {
            decoder.push(chunk, onRecord, chunks);
          } catch (err) {
            error = err;
          }
          const out = batch;
          batch = [];
          if (out.length > 0) {
            emit(out, subject);
            if (ctx.acknowledgements) {
              pendingAcks++;
              attachNotifier(out, new BatchNotifier(settled(chunks)));
              subscriber.next(out);
            } else {
              subscriber.next(out);
              writeAcks(sock, chunks);
            }
          } else writeAcks(sock, chunks);
          if (error !== undefined) fail(error);
          else conn.pauseIfClosed();
        });
        sock.on('end', () => {
          if (broken) return;
          try {
            decoder.end();
          } catch (err) {
            fail(err);
          }
        });
      },
      error: (err: unknown) => subscriber.error(err),
      complete: () => subscriber.complete(),
    });

    /** Per batch: client certificate metadata and the lag of each record's time. */
    function emit(out: LogEvent[], subject: string | undefined): void {
      const now = ctx.scheduler.now();
      for (let i = 0; i < out.length; i++) {
        const e = out[i]!;
        if (subject !== undefined) setPath(e.fields, metadataKey as Path, { subject });
        const t = e.fields[shape.timestampKey];
        // a record may have replaced the time with its own `timestamp` of another kind
        if (t instanceof Timestamp) lag.record(Math.max(0, now - t.ms) / 1000);
      }
    }
  });
}

/** `{ack: chunk}` per chunk, in order; nothing when the peer has gone. */
function writeAcks(sock: Connection['socket'], chunks: readonly string[]): void {
  for (let i = 0; i < chunks.length; i++) if (sock.writable) sock.write(packAck(chunks[i]!));
}
