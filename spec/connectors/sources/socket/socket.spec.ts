import { expect } from 'chai';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SchedulerLike, type Subscription, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import * as v from 'valibot';
import { mapIssue } from '../../../../lib/config/issues.js';
import { createBatchEncoder } from '../../../../lib/codecs/index.js';
import { type EventBatch, type LogEvent, logEvent } from '../../../../lib/event.js';
import { Float, Timestamp } from '../../../../lib/value.js';
import { SocketSourceConfig, socketSource } from '../../../../connectors/sources/socket/index.js';
import { until } from '../../../helpers/wait.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

interface Running {
  ctx: TestSourceContext;
  batches: EventBatch[];
  events: () => LogEvent[];
  host: string;
  port: number;
  completed: () => boolean;
  sub: Subscription;
}

const running: Running[] = [];

async function start(options: Record<string, unknown>, scheduler?: SchedulerLike): Promise<Running> {
  const config = v.parse(SocketSourceConfig, { type: 'socket', ...options });
  const ctx = testSourceContext('socket', 'in', scheduler);
  const batches: EventBatch[] = [];
  let completed = false;
  let failure: unknown;
  const sub = socketSource.build(config, ctx).subscribe({
    next: (b) => batches.push(b as EventBatch),
    complete: () => (completed = true),
    error: (e) => (failure = e),
  });
  await until(() => ctx.listeningAddress() !== undefined || failure !== undefined, 5000, 'listening');
  if (failure) throw failure;
  const addr = ctx.listeningAddress()!;
  const colon = addr.lastIndexOf(':');
  const r: Running = {
    ctx,
    batches,
    events: () => batches.flat() as LogEvent[],
    host: addr.slice(0, colon),
    port: Number(addr.slice(colon + 1)),
    completed: () => completed,
    sub,
  };
  running.push(r);
  return r;
}

function tcpClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // half-open allowed: a client may keep sending after the source's FIN (shutdown)
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => resolve(s));
    s.once('error', reject);
  });
}

const write = (s: Socket, data: string | Buffer) => new Promise<void>((r) => s.write(data, () => r()));

describe('socket source', () => {
  afterEach(() => {
    for (const r of running.splice(0)) r.sub.unsubscribe();
  });

  it('tcp: one event per line with host, port, source_type and receive time; one batch per chunk', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', port_key: 'port' });
    const c = await tcpClient(r.port);
    const clientPort = c.localPort;
    const before = Date.now();
    await write(c, 'first\nsec');
    await until(() => r.events().length === 1, 5000, 'first line');
    await write(c, 'ond\nthird\n');
    await until(() => r.events().length === 3, 5000, 'three lines');
    c.end('tail without newline');
    await until(() => r.events().length === 4, 5000, 'tail at EOF');
    const events = r.events();
    expect(events.map((e) => e.fields.message)).to.deep.equal(['first', 'second', 'third', 'tail without newline']);
    const f = events[0]!.fields;
    expect(f.host).to.equal('127.0.0.1');
    expect(f.port).to.equal(clientPort);
    expect(f.source_type).to.equal('socket');
    expect(f.timestamp).to.be.instanceOf(Timestamp);
    expect((f.timestamp as Timestamp).ms).to.be.within(before - 1, Date.now() + 1);
    expect(events[0]!.meta.sourceId).to.equal('in');
    // 'sec' + 'ond\nthird\n' arrive as separate chunks: never a batch per line
    expect(r.batches.length).to.be.at.most(3);
    expect(r.ctx.metric('component_received_bytes_total', { protocol: 'tcp' })).to.equal(Buffer.byteLength('first\nsecond\nthird\ntail without newline'));
    // received events are counted by the topology for every source: never twice
    expect(r.ctx.metric('component_received_events_total')).to.equal(0);
  });

  it('tcp: json decoding, decode errors are counted and the connection goes on', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', decoding: { codec: 'json' }, host_key: 'peer' });
    const c = await tcpClient(r.port);
    c.end('{"a":1,"f":0.5}\nnot json\n[1,2]\n{"b":2,"peer":"mine"}\n');
    await until(() => r.events().length === 2, 5000, 'two events');
    await until(() => r.ctx.metric('component_errors_total') === 2, 5000, 'errors counted');
    expect(r.events()[0]!.fields).to.deep.include({ a: 1, f: new Float(0.5), peer: '127.0.0.1', source_type: 'socket' });
    expect(r.events()[1]!.fields.peer).to.equal('mine');
    expect(r.ctx.metric('component_errors_total', { error_type: 'parser_failed', stage: 'processing' })).to.equal(2);
    expect(r.ctx.lines.some((l) => l.includes('Failed deserializing frame.'))).to.equal(true);
  });

  it('tcp: frames over max_length are discarded and counted', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', max_length: 5 });
    const c = await tcpClient(r.port);
    c.end('short\ntoo long line\nok\n');
    await until(() => r.events().length === 2, 5000, 'two events');
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['short', 'ok']);
    expect(r.ctx.metric('component_errors_total', { error_code: 'decoder_frame' })).to.equal(1);
  });

  it('tcp: native decoding reads length-delimited frames when no framing is set; a log with peer fields gets host and port', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', decoding: { codec: 'native' }, port_key: 'port' });
    const c = await tcpClient(r.port);
    const clientPort = c.localPort;
    const frames = createBatchEncoder({ codec: 'native' }, {}).encode([logEvent({ message: 'one\ntwo', n: new Float(1) }), logEvent({ message: 'three' })]).bytes;
    c.end(frames);
    await until(() => r.events().length === 2, 5000, 'two events');
    // a newline inside a message does not split it: the frames are length-delimited
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['one\ntwo', 'three']);
    expect(r.events()[0]!.fields).to.deep.include({ n: new Float(1), host: '127.0.0.1', port: clientPort, source_type: 'socket' });
    expect(r.ctx.metric('component_errors_total')).to.equal(0);
  });

  it('tcp: octet counting framing with syslog decoding', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', framing: { method: 'octet_counting' }, decoding: { codec: 'syslog' } });
    const c = await tcpClient(r.port);
    const msg = '<13>1 2024-05-01T10:00:00Z web app 7 - - hello\nworld';
    c.end(`${Buffer.byteLength(msg)} ${msg}`);
    await until(() => r.events().length === 1, 5000, 'one event');
    expect(r.events()[0]!.fields).to.deep.include({ message: 'hello\nworld', hostname: 'web', appname: 'app', procid: 7, severity: 'notice', facility: 'user' });
  });

  it('tcp: a closed output gate stops reading; reopening resumes', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    r.ctx.gate.close();
    const line = 'x'.repeat(1023) + '\n';
    const total = 16 * 1024 * 1024;
    const big = Buffer.from(line.repeat(total / line.length));
    c.write(big);
    // the first chunk is read, then the socket pauses: reading stalls far below the total
    await until(() => r.ctx.metric('component_received_bytes_total') > 0, 5000, 'first chunk');
    let last = -1;
    for (let i = 0; i < 20; i++) {
      await new Promise((res) => setTimeout(res, 20));
      const now = r.ctx.metric('component_received_bytes_total');
      if (now === last) break;
      last = now;
    }
    const stalledAt = r.ctx.metric('component_received_bytes_total');
    await new Promise((res) => setTimeout(res, 100));
    expect(r.ctx.metric('component_received_bytes_total'), 'no reads while closed').to.equal(stalledAt);
    expect(stalledAt).to.be.lessThan(total / 2);
    expect(c.writableLength, 'the sender is pushed back').to.be.greaterThan(0);
    r.ctx.gate.open();
    await until(() => r.ctx.metric('component_received_bytes_total') === total, 10_000, 'all bytes after reopening');
    expect(r.events()).to.have.length(total / line.length);
    c.destroy();
  });

  it('tcp: connection_limit leaves extra connections unread until a slot frees', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', connection_limit: 1 });
    const a = await tcpClient(r.port);
    await write(a, 'from a\n');
    await until(() => r.events().length === 1, 5000, 'a');
    const b = await tcpClient(r.port);
    await write(b, 'from b\n');
    await new Promise((res) => setTimeout(res, 100));
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['from a']);
    a.end();
    await until(() => r.events().length === 2, 5000, 'b after a closed');
    expect(r.events()[1]!.fields.message).to.equal('from b');
    b.destroy();
  });

  it('tcp: shutdown half-closes connections and completes once they end', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    const ended = new Promise<void>((res) => c.on('end', () => res()));
    await write(c, 'before\n');
    await until(() => r.events().length === 1, 5000, 'before');
    r.ctx.shutdown.next();
    await ended; // the source sent FIN
    expect(r.completed()).to.equal(false);
    c.end('after\n');
    await until(() => r.completed(), 5000, 'completion');
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['before', 'after']);
  });

  it('udp: one datagram, one frame; host and port of the sender', async () => {
    const r = await start({ mode: 'udp', address: '127.0.0.1:0', port_key: 'port', max_length: 8 });
    const s = createSocket('udp4');
    await new Promise<void>((res) => s.bind(0, '127.0.0.1', () => res()));
    const send = (m: string) => new Promise<void>((res) => s.send(m, r.port, '127.0.0.1', () => res()));
    await send('one\ntwo');
    await send('truncated datagram');
    await until(() => r.events().length === 2, 5000, 'two datagrams');
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['one\ntwo', 'truncate']);
    expect(r.events()[0]!.fields).to.deep.include({ host: '127.0.0.1', port: s.address().port, source_type: 'socket' });
    s.close();
  });

  it('tcp: shutdown closes connections that do not end within shutdown_timeout_secs', async () => {
    // the forced close is timed on the context's scheduler: virtual time, advanced by hand
    const clock = new VirtualTimeScheduler(VirtualAction, 999);
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', shutdown_timeout_secs: 1 }, clock);
    const c = await tcpClient(r.port);
    c.on('error', () => {});
    await write(c, 'x\n');
    await until(() => (clock.flush(), r.events().length === 1), 5000, 'line');
    r.ctx.shutdown.next();
    clock.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.completed(), 'completed before shutdown_timeout_secs').to.equal(false);
    clock.maxFrames = 1000;
    clock.flush();
    await until(() => r.completed(), 5000, 'forced completion');
    c.destroy();
  });

  it('udp: a configured framing splits a datagram into several events', async () => {
    const r = await start({ mode: 'udp', address: '127.0.0.1:0', framing: { method: 'newline_delimited' } });
    const s = createSocket('udp4');
    await new Promise<void>((res) => s.send('a\nb\nc', r.port, '127.0.0.1', () => res()));
    await until(() => r.events().length === 3, 5000, 'three events');
    expect(r.batches).to.have.length(1);
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['a', 'b', 'c']);
    s.close();
  });

  it('unix_stream: host is the socket path; the file is removed on stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-sock-'));
    const path = join(dir, 'in.sock');
    try {
      const r = await start({ mode: 'unix_stream', path });
      const c = await new Promise<Socket>((res, rej) => {
        const s = connect(path, () => res(s));
        s.once('error', rej);
      });
      c.end('via unix\n');
      await until(() => r.events().length === 1, 5000, 'unix line');
      expect(r.events()[0]!.fields).to.deep.include({ message: 'via unix', host: path, source_type: 'socket' });
      r.sub.unsubscribe();
      expect(existsSync(path)).to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('config', () => {
    const messages = (x: Record<string, unknown>) =>
      (v.safeParse(SocketSourceConfig, { type: 'socket', ...x }).issues ?? []).flatMap((i) => mapIssue(SocketSourceConfig, i)).map((m) => `${m.path}: ${m.message}`);
    const table: [string, Record<string, unknown>, string][] = [
      ['mode is required and listed', { address: ':1' }, 'mode: missing required option'],
      ['bad mode', { mode: 'sctp' }, 'mode: must be one of "tcp", "udp", "unix_stream", "unix_datagram"; got "sctp"'],
      ['tcp needs an address', { mode: 'tcp' }, 'address: address is required when mode is "tcp"'],
      ['unix needs a path', { mode: 'unix_stream' }, 'path: path is required when mode is "unix_stream"'],
      ['bad address', { mode: 'udp', address: 'nope' }, 'address: "nope" is not host:port'],
      ['unix_datagram is refused', { mode: 'unix_datagram', path: '/tmp/x' }, 'mode: mode "unix_datagram" is not supported'],
      ['receive_buffer_bytes only for udp', { mode: 'tcp', address: '0.0.0.0:1', receive_buffer_bytes: 10 }, 'receive_buffer_bytes: receive_buffer_bytes is supported only for udp'],
      ['bad decoding codec', { mode: 'tcp', address: '0.0.0.0:1', decoding: { codec: 'xml' } }, 'decoding.codec: must be one of "bytes", "json", "syslog", "native_json", "native"; got "xml"'],
      ['bad framing method', { mode: 'tcp', address: '0.0.0.0:1', framing: { method: 'x' } }, 'framing.method: must be one of'],
    ];
    for (const [name, opts, expected] of table) {
      it(name, () => {
        expect(messages(opts).join('\n')).to.contain(expected);
      });
    }
    it('defaults', () => {
      const c = v.parse(SocketSourceConfig, { type: 'socket', mode: 'tcp', address: '0.0.0.0:9000' });
      expect(c).to.deep.include({ max_length: 102400, shutdown_timeout_secs: 30, decoding: { codec: 'bytes' } });
      expect(c.framing).to.equal(undefined);
    });
  });
});
