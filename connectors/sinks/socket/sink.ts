/**
 * The `socket` sink: each batch encoded and framed into one write on a TCP or unix stream
 * connection (reconnecting on failure), or one datagram per event over UDP. A batch is delivered
 * once the socket took its bytes; a failed write reports its events `errored` (no resend, as
 * Vector's socket sink) and the next batch reconnects. While the socket's write buffer is full
 * the demand gate stays closed.
 */
import { createSocket } from 'node:dgram';
import { type NetConnectOpts, type Socket, connect } from 'node:net';
import { type OperatorFunction, Subject, firstValueFrom, race, timer } from 'rxjs';
import { FailoverRing, endpointPool, healthcheckTargets } from '../../shared/routing/index.js';
import { createBatchEncoder } from '../../../lib/codecs/index.js';
import { deliveriesOf, reportEncodeFailures, serialWriter, writeAndDrain } from '../../shared/stream-writer.js';
import { SinkEvents } from '../../shared/sink-events.js';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { type SocketAddress, parseSocketAddress } from '../../../lib/net/socket-address.js';
import type { SocketSinkConfig } from './config.js';
import { type ConnectTarget, INITIAL_BACKOFF_MS, MAX_BACKOFF_MS, StreamConnection } from './connection.js';
import { connectFailed, writeFailed } from './events.js';

/** Where the sink connects to (one address). */
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
  if (config.routing !== undefined) return routedSink(config, ctx, encoder);
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

/**
 * Several tcp endpoints (`routing`): each batch goes to the endpoint the strategy picks; a
 * connection that cannot be made or a write that fails counts against that endpoint and the batch
 * goes to the next at once. Once every endpoint failed in a row, the sink waits (0.5 s doubling up
 * to 60 s, as one connection does) and tries again, holding its input: a batch is never given up
 * while the sink runs. A write that failed halfway may have reached its receiver in part: at least
 * once, not exactly once.
 */
function routedSink(config: SocketSinkConfig, ctx: SinkContext, encoder: ReturnType<typeof createBatchEncoder>): OperatorFunction<EventBatch, Delivery> {
  const events = new SinkEvents(ctx);
  const routing = config.routing!;
  const addresses = routing.endpoints;
  const conns = addresses.map((a) => new StreamConnection(parseSocketAddress(a) as SocketAddress, ctx, config.keepalive?.time_secs));
  const indexOf = new Map(addresses.map((a, i) => [a, i]));
  // which endpoints one round tries, in order, and what a failure or a success says about them
  const balance = routing.strategy === 'load_balance' ? endpointPool(routing, ctx) : undefined;
  const ring = balance ? undefined : new FailoverRing(addresses, routing.strategy === 'failover_primary');
  const stopped = new Subject<void>();
  let closed = false;
  const wait = (ms: number) => firstValueFrom(race(timer(ms, ctx.scheduler), stopped), { defaultValue: undefined });
  /** Writes the bytes to endpoint `i`; false (the connection dropped) when it failed. */
  const writeTo = async (i: number, bytes: Buffer): Promise<boolean> => {
    try {
      await writeAndDrain(await conns[i]!.tryGet(), bytes);
      return true;
    } catch (err) {
      conns[i]!.reset();
      writeFailed(ctx, err as Error, 0);
      return false;
    }
  };
  /** One round: every endpoint at most once (the primary twice with failover_primary). */
  const round = async (bytes: Buffer): Promise<boolean> => {
    if (balance) {
      for (let k = 0; k < addresses.length; k++) {
        const lease = balance.pick();
        const ok = await writeTo(indexOf.get(lease.endpoint)!, bytes);
        lease.done(ok);
        if (ok) return true;
      }
      return false;
    }
    const order = ring!.order();
    for (let k = 0; k < order.length; k++) {
      if (await writeTo(order[k]!, bytes)) return true;
      ring!.failed(order[k]!, order[k + 1]);
    }
    return false;
  };
  return serialWriter(ctx, {
    async write(batch) {
      const encoded = encoder.encode(batch);
      reportEncodeFailures(events, encoded.failed, encoded.reason);
      if (encoded.encoded.length === 0) return deliveriesOf(encoded, 0);
      let backoff = INITIAL_BACKOFF_MS;
      while (!(await round(encoded.bytes))) {
        if (closed) return deliveriesOf(encoded, 0, 'errored');
        connectFailed(ctx, new Error('no endpoint took the batch'), backoff);
        await wait(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
      return deliveriesOf(encoded, encoded.bytes.length);
    },
    flush: async () => {
      closed = true;
      stopped.next();
      await Promise.all(conns.map((c) => c.end()));
    },
    dispose: () => {
      closed = true;
      stopped.next();
      for (const c of conns) c.destroy();
    },
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
  if (config.routing === undefined) return canConnect(targetOf(config));
  // every endpoint when load balancing, the first with a failover strategy (Vector's rule)
  await Promise.all(
    healthcheckTargets(config.routing).map((a) =>
      canConnect(parseSocketAddress(a) as SocketAddress).catch((err: Error) => {
        throw new Error(`endpoint ${a}: ${err.message}`);
      }),
    ),
  );
}

function canConnect(target: ConnectTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const s = connect(target as NetConnectOpts);
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
