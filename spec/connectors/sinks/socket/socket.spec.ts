import { expect } from 'chai';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject, lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { mapIssue } from '../../../../lib/config/issues.js';
import { type Delivery, EventMetadata, LogEvent } from '../../../../lib/event.js';
import type { ObjectValue } from '../../../../lib/value.js';
import { SocketSinkConfig, buildSocketSink, socketSink } from '../../../../connectors/sinks/socket/index.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { receiver } from './receiver.js';

const log = (fields: ObjectValue) => new LogEvent(fields, new EventMetadata('in', 'test'));
const parse = (x: Record<string, unknown>) => v.parse(SocketSinkConfig, { type: 'socket', inputs: ['in'], ...x });

/**
 * A destination that does not read until `peer()` is resumed (the kernel's buffers fill and the
 * sink's writes wait), and a text sink writing to it.
 */
async function pausedDestination() {
  let peer: Socket | undefined;
  const chunks: Buffer[] = [];
  const server = createServer((s) => {
    peer = s;
    s.pause();
    s.on('data', (d: Buffer) => chunks.push(d));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const ctx = testSinkContext('socket');
  const input = new Subject<LogEvent[]>();
  const ds: Delivery[] = [];
  input.pipe(buildSocketSink(parse({ mode: 'tcp', address: `127.0.0.1:${(server.address() as AddressInfo).port}`, encoding: { codec: 'text' } }), ctx)).subscribe((d) => ds.push(d));
  return {
    ctx,
    input,
    ds,
    peer: () => peer,
    received: () => chunks.reduce((n, c) => n + c.length, 0),
    bytes: () => Buffer.concat(chunks),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('socket sink', () => {
  it('tcp: newline-framed json, one write per batch, delivered with bytes; ends the connection at completion', async () => {
    const rx = await receiver();
    const ctx = testSinkContext('socket');
    const a = [log({ message: 'a' }), log({ message: 'b' })];
    const ds = await lastValueFrom(of(a, [log({ message: 'c' })]).pipe(buildSocketSink(parse({ mode: 'tcp', address: `127.0.0.1:${rx.port}`, encoding: { codec: 'json' } }), ctx), toArray()));
    await until(() => rx.data().split('\n').length === 4, 5000, 'three lines');
    expect(rx.data()).to.equal('{"message":"a"}\n{"message":"b"}\n{"message":"c"}\n');
    expect(ds[0]).to.deep.equal({ status: 'delivered', events: a, bytes: 32 });
    expect(rx.connections).to.equal(1);
    await until(() => rx.sockets.size === 0, 5000, 'connection ended');
    await rx.close();
  });

  it('tcp: waits for the destination and reconnects after it drops the connection', async () => {
    const rx0 = await receiver();
    const port = rx0.port;
    await rx0.close(); // nothing listens yet
    const ctx = testSinkContext('socket');
    const input = new Subject<LogEvent[]>();
    const ds: Delivery[] = [];
    input.pipe(buildSocketSink(parse({ mode: 'tcp', address: `127.0.0.1:${port}`, encoding: { codec: 'text' } }), ctx)).subscribe((d) => ds.push(d));
    input.next([log({ message: 'early' })]);
    await until(() => ctx.metric('component_errors_total', { error_type: 'connection_failed' }) >= 1, 5000, 'a failed attempt');
    const rx = await receiver(port);
    await until(() => rx.data() === 'early\n', 5000, 'delivery after the destination came up');
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(ctx.metric('connection_established_total', { mode: 'tcp' })).to.equal(1);
    for (const s of rx.sockets) s.destroy();
    // the sink reads EOF and drops the socket; the next batch opens a new connection
    await until(() => ctx.metric('connection_shutdown_total', { mode: 'tcp' }) === 1, 5000, 'the shutdown noticed');
    input.next([log({ message: 'later' })]);
    await until(() => rx.data() === 'early\nlater\n', 10_000, 'delivery on a new connection');
    expect(rx.connections).to.equal(2);
    expect(ctx.metric('connection_established_total', { mode: 'tcp' })).to.equal(2);
    input.complete();
    await rx.close();
  });

  it('tcp: closes the demand gate while the socket cannot take more, reopens when it drains', async () => {
    const d = await pausedDestination();
    const big = 'y'.repeat(4 * 1024 * 1024);
    d.input.next([log({ message: big })]);
    d.input.next([log({ message: big })]);
    await until(() => d.peer() !== undefined, 5000, 'connection');
    await until(() => !d.ctx.demand.isOpen, 5000, 'the gate closed while the kernel buffers are full');
    expect(d.ds).to.have.length(0);
    d.peer()!.resume();
    await until(() => d.ds.length === 2, 10_000, 'both batches delivered');
    expect(d.ctx.demand.isOpen).to.equal(true);
    await until(() => d.received() === 2 * (big.length + 1), 5000, 'all bytes');
    d.input.complete();
    await d.close();
  });

  it('tcp: batches written while an earlier write waits arrive whole and in order (one buffer serves every batch)', async () => {
    const d = await pausedDestination();
    // the first batch fills the kernel's buffers; the next two are written into the sink's one
    // buffer, each only after the write before it finished
    const big = 'a'.repeat(4 * 1024 * 1024);
    d.input.next([log({ message: big })]);
    d.input.next([log({ message: 'b'.repeat(1000) }), log({ message: 'c' })]);
    d.input.next([log({ message: 'd'.repeat(1000) })]);
    await until(() => d.peer() !== undefined, 5000, 'connection');
    d.peer()!.resume();
    await until(() => d.ds.length === 3, 10_000, 'three batches delivered');
    const expected = `${big}\n${'b'.repeat(1000)}\nc\n${'d'.repeat(1000)}\n`;
    await until(() => d.received() === expected.length, 5000, 'all bytes');
    expect(d.bytes().toString('latin1') === expected, 'the bytes of each batch as it was encoded').to.equal(true);
    d.input.complete();
    await d.close();
  });

  it('unix: writes to a stream socket file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-sink-'));
    const path = join(dir, 'out.sock');
    try {
      const rx = await receiver(path);
      await lastValueFrom(of([log({ message: 'm' })]).pipe(buildSocketSink(parse({ mode: 'unix', path, encoding: { codec: 'raw_message' }, framing: { method: 'length_delimited' } }), testSinkContext('socket')), toArray()));
      await until(() => rx.data().length === 5, 5000, 'frame');
      expect(Buffer.from(rx.data(), 'latin1').toString('hex')).to.equal('000000016d');
      await rx.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('udp: one datagram per event, unframed by default', async () => {
    const rx = createSocket('udp4');
    const got: string[] = [];
    rx.on('message', (m) => got.push(m.toString()));
    await new Promise<void>((r) => rx.bind(0, '127.0.0.1', () => r()));
    const ds = await lastValueFrom(
      of([log({ message: 'x' }), log({ message: 'y' })]).pipe(buildSocketSink(parse({ mode: 'udp', address: `127.0.0.1:${rx.address().port}`, encoding: { codec: 'text' } }), testSinkContext('socket')), toArray()),
    );
    await until(() => got.length === 2, 5000, 'datagrams');
    expect(got).to.deep.equal(['x', 'y']);
    expect(ds).to.have.length(1);
    expect(ds[0]!.bytes).to.equal(2);
    rx.close();
  });

  it('healthcheck connects for tcp and fails when nothing listens', async () => {
    const rx = await receiver();
    await socketSink.healthcheck!(parse({ mode: 'tcp', address: `127.0.0.1:${rx.port}`, encoding: { codec: 'text' } }), testSinkContext('socket'));
    const port = rx.port;
    await rx.close();
    let failed = false;
    await socketSink.healthcheck!(parse({ mode: 'tcp', address: `127.0.0.1:${port}`, encoding: { codec: 'text' } }), testSinkContext('socket')).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('config errors name the option', () => {
    const messages = (x: Record<string, unknown>) =>
      (v.safeParse(SocketSinkConfig, { type: 'socket', inputs: ['in'], ...x }).issues ?? []).flatMap((i) => mapIssue(SocketSinkConfig, i)).map((m) => `${m.path}: ${m.message}`);
    expect(messages({ mode: 'tcp', encoding: { codec: 'json' } })).to.deep.equal(['address: address is required when mode is "tcp" (or routing.endpoints)']);
    expect(messages({ mode: 'unix', encoding: { codec: 'json' } })).to.deep.equal(['path: path is required when mode is "unix"']);
    expect(messages({ mode: 'tcp', address: 'a:1', encoding: { codec: 'avro' } })[0]).to.match(/^encoding\.codec: must be one of "json"/);
    expect(messages({ mode: 'udp', address: 'a:1', encoding: { codec: 'json' }, keepalive: { time_secs: 1 } })).to.deep.equal(['keepalive: keepalive applies only to tcp']);
    expect(messages({ mode: 'tcp', address: 'a:1', encoding: { codec: 'json' }, framing: { method: 'newline_delimited', newline_delimited: { max_length: 1 } } })[0]).to.contain(
      'max_length applies only where frames are decoded',
    );
  });
});
