import { expect } from 'chai';
import { Unpackr } from 'msgpackr';
import { Socket, connect } from 'node:net';
import * as v from 'valibot';
import { LogfwdSourceConfig } from '../../../../connectors/sources/logfwd/index.js';
import { mapIssue } from '../../../../lib/config/issues.js';
import { settleAll } from '../../../../lib/event.js';
import { until } from '../../../helpers/wait.js';
import { entry, forward, message } from './frames.js';
import { type RunningSource, startSource } from './harness.js';

const unpackr = new Unpackr({ useRecords: false });

/** A raw forward client: writes frames, collects the server's msgpack replies. */
async function rawClient(port: number) {
  const sock: Socket = connect(port, '127.0.0.1');
  sock.on('error', () => {});
  await new Promise<void>((res) => sock.once('connect', () => res()));
  const replies: unknown[] = [];
  let rest = Buffer.alloc(0);
  let closed = false;
  sock.on('data', (d: Buffer) => {
    rest = Buffer.concat([rest, d]);
    try {
      unpackr.unpackMultiple(rest, (x: unknown) => {
        replies.push(x);
      });
      rest = Buffer.alloc(0);
    } catch {
      // incomplete: wait for more
    }
  });
  sock.on('close', () => {
    closed = true;
  });
  return { sock, replies, isClosed: () => closed };
}

const issues = (x: Record<string, unknown>) =>
  (v.safeParse(LogfwdSourceConfig, { type: 'logfwd', ...x }).issues ?? []).flatMap((i) => mapIssue(LogfwdSourceConfig, i)).map((m) => `${m.path}: ${m.message}`);

describe('logfwd source: connections, acks, errors', function () {
  this.timeout(30_000);
  let src: RunningSource;
  afterEach(() => src?.stop());

  it('answers a chunk with {ack} once the events are emitted (acknowledgements off); frames without chunk get nothing', async () => {
    src = await startSource();
    const c = await rawClient(src.port);
    c.sock.write(message('t', 1, { a: 1 }));
    c.sock.write(forward('t', [entry(2, { a: 2 }), entry(3, { a: 3 })], { chunk: 'abc', size: 2 }));
    await until(() => c.replies.length === 1, 5000, 'ack');
    expect(c.replies).to.deep.equal([{ ack: 'abc' }]);
    expect(src.events().map((e) => e.fields.a)).to.deep.equal([1, 2, 3]);
    c.sock.destroy();
  });

  it('with end-to-end acknowledgements, an ack is written only when its events are delivered', async () => {
    src = await startSource({}, { acknowledgements: true });
    const c = await rawClient(src.port);
    c.sock.write(message('t', 1, { n: 1 }, { chunk: 'first' }));
    await until(() => src.events().length === 1, 5000, 'first event');
    c.sock.write(message('t', 2, { n: 2 }, { chunk: 'second' }));
    await until(() => src.events().length === 2, 5000, 'second event');
    settleAll([src.events()[1]!], 'delivered');
    // replies arrive in write order: seeing the second ack proves none was written for the first
    await until(() => c.replies.length === 1, 5000, 'second ack');
    expect(c.replies).to.deep.equal([{ ack: 'second' }]);
    settleAll([src.events()[0]!], 'delivered');
    await until(() => c.replies.length === 2, 5000, 'first ack');
    expect(c.replies[1]).to.deep.equal({ ack: 'first' });
    c.sock.destroy();
  });

  it('an event that is not delivered answers {} per chunk and closes the connection', async () => {
    src = await startSource({}, { acknowledgements: true });
    const c = await rawClient(src.port);
    c.sock.write(Buffer.concat([message('t', 1, { n: 1 }, { chunk: 'x' }), message('t', 1, { n: 2 }, { chunk: 'y' })]));
    await until(() => src.events().length === 2, 5000, 'events');
    settleAll(src.events(), 'rejected');
    await until(() => c.isClosed(), 5000, 'connection closed');
    expect(c.replies).to.deep.equal([{}, {}]);
    expect(src.ctx.metric('component_errors_total', { error_type: 'acknowledgements_failed' })).to.equal(1);
  });

  it('a frame that cannot be decoded is counted and closes its connection; other connections and the source go on', async () => {
    src = await startSource();
    const good = await rawClient(src.port);
    const bad = await rawClient(src.port);
    bad.sock.write(Buffer.concat([message('ok', 1, { n: 1 }), Buffer.from([0x2a])]));
    await until(() => bad.isClosed(), 5000, 'bad connection closed');
    expect(src.ctx.metric('decode_errors_total')).to.equal(1);
    expect(src.ctx.metric('component_errors_total', { error_type: 'parser_failed', stage: 'processing' })).to.equal(1);
    expect(src.ctx.lines.some((l) => l.includes('Failed decoding forward frame') && l.includes('Kg=='))).to.equal(true);
    good.sock.write(message('still', 2, { n: 2 }, { chunk: 'g' }));
    await until(() => good.replies.length === 1, 5000, 'ack on the good connection');
    const fresh = await rawClient(src.port);
    fresh.sock.write(message('new', 3, { n: 3 }, { chunk: 'f' }));
    await until(() => fresh.replies.length === 1, 5000, 'a new connection works');
    expect(src.events().map((e) => e.fields.tag)).to.deep.equal(['ok', 'still', 'new']);
    expect(good.isClosed()).to.equal(false);
    good.sock.destroy();
    fresh.sock.destroy();
  });

  it('a frame over the global max_decompressed_bytes closes the connection', async () => {
    src = await startSource();
    // the cap comes from the globals (default 100 MiB): a str announcing 112 MiB is refused before it is buffered
    const c = await rawClient(src.port);
    const header = Buffer.from([0x93, 0xa1, 0x74, 0x01, 0x81, 0xa1, 0x6d, 0xdb, 0x07, 0x00, 0x00, 0x00]); // ["t", 1, {"m": str32 of 112 MiB…
    c.sock.write(header);
    await until(() => c.isClosed(), 5000, 'closed');
    expect(src.ctx.metric('decode_errors_total')).to.equal(1);
    expect(src.ctx.lines.some((l) => l.includes('frame larger than 104857600 bytes'))).to.equal(true);
  });

  it('connection_limit: a connection past the limit is not read until a slot frees', async () => {
    src = await startSource({ connection_limit: 1 });
    const a = await rawClient(src.port);
    a.sock.write(message('a', 1, {}, { chunk: 'a1' }));
    await until(() => a.replies.length === 1, 5000, 'a acked');
    const b = await rawClient(src.port);
    b.sock.write(message('b', 1, {}, { chunk: 'b1' }));
    // a round trip on a after b wrote: b, beyond the limit, is still unread
    a.sock.write(message('a', 2, {}, { chunk: 'a2' }));
    await until(() => a.replies.length === 2, 5000, 'a acked again');
    expect(src.events().map((e) => e.fields.tag)).to.deep.equal(['a', 'a']);
    a.sock.end();
    await until(() => b.replies.length === 1, 5000, 'b read after a closed');
    expect(src.events().map((e) => e.fields.tag)).to.deep.equal(['a', 'a', 'b']);
    b.sock.destroy();
  });

  it('a closed output gate stops reading the connection; reopening resumes with nothing lost', async () => {
    src = await startSource();
    const c = await rawClient(src.port);
    src.ctx.gate.close();
    const frames = Buffer.concat(Array.from({ length: 20_000 }, (_, i) => message('t', 1, { i, pad: 'p'.repeat(800) })));
    c.sock.write(frames);
    await until(() => src.ctx.metric('component_received_bytes_total') > 0, 5000, 'first read');
    // round trips on fresh connections: each is read once, yet the paused one stays far behind
    for (let i = 0; i < 5; i++) {
      const f = await rawClient(src.port);
      f.sock.write(message('probe', 1, {}, { chunk: `p${i}` }));
      await until(() => f.replies.length === 1, 5000, 'probe acked');
      f.sock.destroy();
    }
    expect(src.ctx.metric('component_received_bytes_total')).to.be.lessThan(frames.length / 2);
    src.ctx.gate.open();
    await until(() => src.events().filter((e) => e.fields.tag === 't').length === 20_000, 20_000, 'every frame after reopening');
    expect(src.events().filter((e) => e.fields.tag === 't').map((e) => e.fields.i)).to.deep.equal(Array.from({ length: 20_000 }, (_, i) => i));
    c.sock.destroy();
  });

  it('keepalive.time_secs turns TCP keepalive on for accepted connections', async () => {
    const calls: [boolean | undefined, number | undefined][] = [];
    const original = Socket.prototype.setKeepAlive;
    Socket.prototype.setKeepAlive = function (this: Socket, enable?: boolean, delay?: number) {
      if (this.remotePort !== undefined && this.localPort === src.port) calls.push([enable, delay]);
      return original.call(this, enable, delay);
    };
    try {
      src = await startSource({ keepalive: { time_secs: 7 } });
      const c = await rawClient(src.port);
      c.sock.write(message('k', 1, {}, { chunk: 'k' }));
      await until(() => c.replies.length === 1, 5000, 'ack');
      c.sock.destroy();
    } finally {
      Socket.prototype.setKeepAlive = original;
    }
    expect(calls).to.deep.equal([[true, 7000]]);
  });

  it('counts received bytes and the lag of each record time (a record whose own timestamp replaced it has none)', async () => {
    src = await startSource();
    const c = await rawClient(src.port);
    const bytes = Buffer.concat([forward('t', [entry(1, { a: 1 }), entry(2, { timestamp: 'not a time' })]), message('t', 3, { b: 1 }, { chunk: 'l' })]);
    c.sock.write(bytes);
    await until(() => c.replies.length === 1, 5000, 'ack');
    expect(src.ctx.metric('component_received_bytes_total')).to.equal(bytes.length);
    expect(src.ctx.metric('source_lag_time_seconds')).to.equal(2);
    c.sock.destroy();
  });

  it('acknowledgements.enabled is accepted with a deprecation warning', async () => {
    src = await startSource({ acknowledgements: { enabled: true } });
    expect(src.ctx.lines.some((l) => l.includes('acknowledgements.enabled on the logfwd source is deprecated'))).to.equal(true);
  });

  it('receive_buffer_bytes is accepted with one warning that it has no effect, and the source still acknowledges', async () => {
    const warning = 'receive_buffer_bytes has no effect on the logfwd source';
    src = await startSource({ receive_buffer_bytes: 65536 });
    expect(src.ctx.lines.filter((l) => l.includes(warning))).to.have.length(1);
    const c = await rawClient(src.port);
    c.sock.write(message('r', 1, {}, { chunk: 'r' }));
    await until(() => c.replies.length === 1, 5000, 'ack');
    c.sock.destroy();
    src.stop();
    src = await startSource();
    expect(src.ctx.lines.filter((l) => l.includes(warning))).to.deep.equal([]);
  });

  it('config: address required and checked (systemd#N allowed), receive_buffer_bytes accepted, tls.enabled needs crt_file', () => {
    expect(issues({})[0]).to.match(/^address: /);
    expect(issues({ address: 'nope' })[0]).to.match(/^address: /);
    expect(issues({ address: 'systemd#2' })).to.deep.equal([]);
    expect(issues({ address: 'systemd#0' })[0]).to.match(/^address: .*counts from 1/);
    expect(issues({ address: '0.0.0.0:24224', receive_buffer_bytes: 65536 })).to.deep.equal([]);
    expect(issues({ address: '0.0.0.0:24224', receive_buffer_bytes: 0 })[0]).to.match(/^receive_buffer_bytes: /);
    expect(issues({ address: '0.0.0.0:24224', tls: { enabled: true } })[0]).to.match(/^tls.enabled: crt_file is required/);
    expect(issues({ address: '0.0.0.0:24224', connection_limit: 0 })[0]).to.match(/^connection_limit: /);
  });
});
