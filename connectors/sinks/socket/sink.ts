/**
 * The `socket` sink: each batch encoded and framed into one write on a TCP or unix stream
 * connection (reconnecting on failure), or one datagram per event over UDP. A batch is delivered
 * once the socket took its bytes; a failed write reports its events `errored` (no resend, as
 * Vector's socket sink) and the next batch reconnects. While the socket's write buffer is full
 * the demand gate stays closed.
 */
import { createSocket } from 'node:dgram';
import { type NetConnectOpts, type Socket, connect } from 'node:net';
import type { OperatorFunction } from 'rxjs';
import { createBatchEncoder } from '../../../lib/codecs/index.js';
import { deliveriesOf, reportEncodeFailures, serialWriter, writeAndDrain } from '../../shared/stream-writer.js';
import { SinkEvents } from '../../shared/sink-events.js';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { type SocketAddress, parseSocketAddress } from '../../../lib/net/socket-address.js';
import type { SocketSinkConfig } from './config.js';
import { type ConnectTarget, StreamConnection } from './connection.js';
import { writeFailed } from './events.js';

/** Where the sink connects to. */
export function targetOf(config: SocketSinkConfig): ConnectTarget {
  if (config.mode === 'unix') return { path: config.path! };
  return parseSocketAddress(config.address!) as SocketAddress;
}

/** Builds the sink. */
export function buildSocketSink(config: SocketSinkConfig, ctx: SinkContext): OperatorFunction<EventBatch, Delivery> {
  // datagrams carry one event each: no framing unless configured
  const framing = config.mode === 'udp' && config.framing.method === undefined ? { method: 'bytes' as const } : config.framing;
  // a stream's batches are written one at a time, each done with its bytes before the next is
  // encoded: one buffer serves them all
  const encoder = createBatchEncoder(config.encoding, framing, ctx.globals.log_schema, config.mode !== 'udp');
  return config.mode === 'udp' ? udpSink(config, ctx, encoder) : streamSink(config, ctx, encoder);
}

function streamSink(config: SocketSinkConfig, ctx: SinkContext, encoder: ReturnType<typeof createBatchEncoder>): OperatorFunction<EventBatch, Delivery> {
  const events = new SinkEvents(ctx);
  const conn = new StreamConnection(targetOf(config), ctx, config.keepalive?.time_secs);
  return serialWriter(ctx, {
    async write(batch) {
      const encoded = encoder.encode(batch);
      reportEncodeFailures(events, encoded.failed, encoded.reason);
      if (encoded.encoded.length === 0) return deliveriesOf(encoded, 0);
      const s = await conn.get();
      try {
        await writeAndDrain(s, encoded.bytes);
      } catch (err) {
        writeFailed(ctx, err as Error, encoded.encoded.length);
        conn.reset();
        return deliveriesOf(encoded, 0, 'errored');
      }
      return deliveriesOf(encoded, encoded.bytes.length);
    },
    flush: () => conn.end(),
    dispose: () => conn.destroy(),
  });
}

function udpSink(config: SocketSinkConfig, ctx: SinkContext, encoder: ReturnType<typeof createBatchEncoder>): OperatorFunction<EventBatch, Delivery> {
  const events = new SinkEvents(ctx);
  const addr = targetOf(config) as SocketAddress;
  const sock = createSocket(addr.host.includes(':') ? 'udp6' : 'udp4');
  // connected UDP: the host name is resolved once, and sends need no address
  const connected = new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.connect(addr.port, addr.host, () => {
      sock.off('error', reject);
      sock.on('error', (err) => writeFailed(ctx, err, 0));
      resolve();
    });
  });
  const send = (frame: Buffer) => new Promise<void>((resolve, reject) => sock.send(frame, (err) => (err ? reject(err) : resolve())));
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      sock.close();
    } catch {
      // already closed
    }
  };
  return serialWriter(ctx, {
    async write(batch) {
      await connected;
      const { frames, encoded, failed, reason } = encoder.encodeEach(batch);
      reportEncodeFailures(events, failed, reason);
      const sent: typeof encoded = [];
      const lost: typeof encoded = [];
      let bytes = 0;
      for (let i = 0; i < frames.length; i++) {
        try {
          await send(frames[i]!);
          sent.push(encoded[i]!);
          bytes += frames[i]!.length;
        } catch (err) {
          // too large for a datagram, or no route: this event is lost
          writeFailed(ctx, err as Error, 1);
          lost.push(encoded[i]!);
        }
      }
      const out: Delivery[] = [];
      if (sent.length > 0) out.push({ status: 'delivered', events: sent, bytes });
      if (lost.length > 0) out.push({ status: 'errored', events: lost, bytes: 0 });
      if (failed.length > 0) out.push({ status: 'rejected', events: failed, bytes: 0 });
      return out;
    },
    flush: async () => close(),
    dispose: close,
  });
}

/** Boot check: a stream connection can be opened (UDP has nothing to check). */
export async function socketHealthcheck(config: SocketSinkConfig): Promise<void> {
  if (config.mode === 'udp') return;
  await new Promise<void>((resolve, reject) => {
    const s = connect(targetOf(config) as NetConnectOpts);
    s.once('connect', () => {
      s.destroy();
      resolve();
    });
    s.once('error', (err) => {
      s.destroy();
      reject(err);
    });
  });
}
