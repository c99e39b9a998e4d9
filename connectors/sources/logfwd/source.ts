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
import type { Observable } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus, LogEvent } from '../../../lib/event.js';
import { type Path, parsePath, setPath } from '../../../lib/path.js';
import { type ListenTarget, parseListenAddress } from '../../shared/listen-address.js';
import { listenerTls } from '../../shared/listener-config.js';
import { type SourceOutput, Unsettled, runSource, serveConnections } from '../../shared/source/index.js';
import type { Connection } from '../../shared/tcp-listener.js';
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
  if (config.receive_buffer_bytes !== undefined) ctx.log.warn('receive_buffer_bytes has no effect on the logfwd source: Node.js cannot set SO_RCVBUF on accepted TCP sockets.');
  const target = parseListenAddress(config.address, { systemd: true }) as ListenTarget;
  // Node asks for a client certificate only when verify_certificate is on: no subject otherwise
  const metadataKey = tls?.requestCert && config.tls?.client_metadata_key !== undefined ? parsePath(config.tls.client_metadata_key) : undefined;
  const schema = ctx.globals.log_schema;
  const shape: RecordShape = { sourceId: ctx.id, sourceTypeKey: schema.source_type_key, timestampKey: schema.timestamp_key, hostKey: schema.host_key };
  return runSource<LogEvent[]>(ctx, { protocol: 'tcp', lagKey: shape.timestampKey }, (out) => {
    const parts: ConnectionParts = { out, events: logfwdEvents(ctx), unpackr: createUnpackr(), shape, metadataKey, limit: ctx.globals.max_decompressed_bytes };
    const listenerOptions = {
      target,
      connectionLimit: config.connection_limit,
      keepaliveSecs: config.keepalive?.time_secs,
      tls: tls as TlsOptions | undefined,
      shutdownTimeoutSecs: SHUTDOWN_TIMEOUT_SECS,
    };
    return serveConnections(ctx, out, listenerOptions, (conn) => serveConnection(conn, parts));
  });
}

/** What every connection of one subscription shares. */
interface ConnectionParts {
  readonly out: SourceOutput;
  readonly events: LogfwdEvents;
  readonly unpackr: ReturnType<typeof createUnpackr>;
  readonly shape: RecordShape;
  readonly metadataKey: Path | undefined;
  /** Bytes held for one incomplete frame, and a gzip blob inflated. */
  readonly limit: number;
}

/** Decodes one connection: each read is one batch; its chunks are answered once the batch settled. */
function serveConnection(conn: Connection, p: ConnectionParts): void {
  const decoder = createForwardDecoder(p.unpackr, { maxFrameBytes: p.limit, maxDecompressedBytes: p.limit });
  const host = conn.peerHost;
  const subject = p.metadataKey !== undefined ? conn.clientSubject : undefined;
  const sock = conn.socket;
  let batch: LogEvent[] = [];
  const onRecord: RecordSink = (tag, time, record) => {
    batch.push(recordEvent(p.shape, tag, time, record, host));
  };
  const unsettled = new Unsettled();
  let broken = false;
  const close = () => {
    if (!sock.destroyed) sock.end(() => sock.destroy());
  };
  const settled = (chunks: string[]) => (status: DeliveryStatus) => {
    if (status === 'delivered') writeAcks(sock, chunks);
    else {
      p.events.deliveryFailed(status, chunks.length, host);
      for (let i = 0; i < chunks.length; i++) if (sock.writable) sock.write(failedAck());
      broken = true;
      sock.pause();
    }
    if (broken && unsettled.count === 0) close();
  };
  const fail = (err: unknown) => {
    // whatever went wrong with this connection's input ends this connection only
    p.events.decodeFailed(err instanceof ForwardDecodeError ? err : new ForwardDecodeError(String((err as Error)?.message ?? err), Buffer.alloc(0)), host);
    broken = true;
    sock.pause();
    if (unsettled.count === 0) close();
  };
  sock.on('data', (chunk: Buffer) => {
    if (broken) return;
    p.out.received(chunk.length);
    const chunks: string[] = [];
    let error: unknown;
    try {
      decoder.push(chunk, onRecord, chunks);
    } catch (err) {
      error = err;
    }
    const read = batch;
    batch = [];
    if (subject !== undefined) for (let i = 0; i < read.length; i++) setPath(read[i]!.fields, p.metadataKey as Path, { subject });
    p.out.emitSettled(read, unsettled.wrap(settled(chunks)));
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
}

/** `{ack: chunk}` per chunk, in order; nothing when the peer has gone. */
function writeAcks(sock: Connection['socket'], chunks: readonly string[]): void {
  for (let i = 0; i < chunks.length; i++) if (sock.writable) sock.write(packAck(chunks[i]!));
}
