/**
 * Sources that accept stream connections (TCP, TLS, unix): the listener (../tcp-listener.ts) on
 * the skeleton's terms, and the one way a connection's bytes become batches through a stream
 * decoder. The source drains once every connection closed after shutdown.
 */
import type { Socket as DatagramSocket } from 'node:dgram';
import type { StreamDecoder } from '../../../lib/codecs/index.js';
import type { SourceContext } from '../../../lib/component.js';
import { type EventBatch, rememberBatchSize } from '../../../lib/event.js';
import { type SocketAddress, formatSocketAddress } from '../../../lib/net/socket-address.js';
import type { Path } from '../../../lib/path.js';
import { addClientMetadata } from '../client-metadata.js';
import { listening } from '../listener-events.js';
import { type Connection, type StreamListenerOptions, streamConnections } from '../tcp-listener.js';
import type { SourceOutput } from './output.js';
import type { RunningSource } from './run.js';

/** Listens; `serve` attaches its readers to each connection; a failure to listen fails the source. */
export function serveConnections(ctx: SourceContext, out: SourceOutput, opts: StreamListenerOptions, serve: (conn: Connection) => void): RunningSource {
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  const sub = streamConnections(ctx, opts).subscribe({
    next: serve,
    error: (err: unknown) => out.fail(err),
    // the listener completes once every connection closed after shutdown
    complete: () => closed(),
  });
  return { drain: () => done, close: () => sub.unsubscribe() };
}

/**
 * Decodes a connection: each read is one batch (never an empty one), its bytes counted; the rest
 * at end of stream. With `metadataKey` and a client certificate, every event gets the subject.
 * The connection pauses after an emission that found the output gate closed.
 */
export function decodeConnection(conn: Connection, out: SourceOutput, decoder: StreamDecoder, metadataKey: Path | undefined): void {
  const subject = metadataKey !== undefined ? conn.clientSubject : undefined;
  const emit = (batch: EventBatch) => {
    if (subject !== undefined && batch.length > 0) addClientMetadata(batch, metadataKey!, subject);
    out.emit(batch);
  };
  conn.socket.on('data', (chunk: Buffer) => {
    out.received(chunk.length);
    const batch = decoder.push(chunk);
    // the decoder summed the events' sizes (client metadata, added after, is not in them)
    if (subject === undefined) rememberBatchSize(batch, decoder.eventBytes);
    emit(batch);
    conn.pauseIfClosed();
  });
  conn.socket.on('end', () => emit(decoder.end()));
}

/**
 * Binds a datagram socket whose `message` handler the source attached. An error before the bind
 * (address in use) fails the source; after it `onReadError` decides (default: fails it too). A
 * datagram socket has nothing in hand to finish: shutdown closes it at once.
 */
export function serveDatagrams(
  ctx: SourceContext,
  out: SourceOutput,
  sock: DatagramSocket,
  addr: SocketAddress,
  onReadError: (err: Error) => void = (err) => out.fail(err),
): RunningSource {
  let bound = false;
  sock.on('error', (err) => (bound ? onReadError(err) : out.fail(err)));
  sock.bind(addr.port, addr.host, () => {
    bound = true;
    const a = sock.address();
    listening(ctx, formatSocketAddress({ host: a.address, port: a.port }));
  });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    sock.close();
  };
  return { drain: close, close };
}
