/**
 * The syslog source against util-linux `logger`, a real RFC 5424 / RFC 3164 sender (TCP with and
 * without octet counting, UDP, unix), and raw sockets where exact bytes matter.
 */
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Subscription } from 'rxjs';
import * as v from 'valibot';
import { SyslogSourceConfig, syslogSource } from '../../../../connectors/sources/syslog/index.js';
import { mapIssue } from '../../../../lib/config/issues.js';
import { validateOptions } from '../../../../lib/config/validate-options.js';
import type { EventBatch, LogEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { until } from '../../../helpers/wait.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

const run = promisify(execFile);
const HOST = hostname();

interface Running {
  ctx: TestSourceContext;
  events: () => LogEvent[];
  port: number;
  completed: () => boolean;
  sub: Subscription;
}

const running: Running[] = [];

async function start(options: Record<string, unknown>): Promise<Running> {
  const config = v.parse(SyslogSourceConfig, { type: 'syslog', ...options });
  const ctx = testSourceContext('syslog');
  const batches: EventBatch[] = [];
  let completed = false;
  let failure: unknown;
  const sub = syslogSource.build(config, ctx).subscribe({
    next: (b) => batches.push(b as EventBatch),
    complete: () => (completed = true),
    error: (e) => (failure = e),
  });
  await until(() => ctx.listeningAddress() !== undefined || failure !== undefined, 5000, 'listening');
  if (failure) throw failure;
  const addr = ctx.listeningAddress()!;
  const r: Running = { ctx, events: () => batches.flat() as LogEvent[], port: Number(addr.slice(addr.lastIndexOf(':') + 1)), completed: () => completed, sub };
  running.push(r);
  return r;
}

/** util-linux logger; its RFC 3164 timestamps are in the local zone, so it runs in UTC as the source reads them. */
const logger = (args: string[]) => run('logger', args, { env: { ...process.env, TZ: 'UTC' } });
const loggerTo = (port: number, args: string[]) => logger(['--server', '127.0.0.1', '--port', String(port), ...args]);

function tcpClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // half-open allowed: a client may keep sending after the source's FIN (shutdown)
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => resolve(s));
    s.once('error', reject);
  });
}

const counted = (msg: string) => `${Buffer.byteLength(msg)} ${msg}`;

describe('syslog source', () => {
  afterEach(() => {
    for (const r of running.splice(0)) r.sub.unsubscribe();
  });

  it('logger --tcp --rfc5424 --octet-count: header fields, msgid, structured data under each SD-ID, host, source_ip', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const before = Date.now();
    await loggerTo(r.port, ['--tcp', '--rfc5424', '--octet-count', '--sd-id', 'zoo@32473', '--sd-param', 'tiger="hungry"', '--sd-param', 'lion="asleep"', '--msgid', 'ID47', '-t', 'myapp', '--id=4242', '-p', 'local4.warning', 'five four two four']);
    await until(() => r.events().length === 1, 5000, 'one event');
    const f = r.events()[0]!.fields;
    expect(f).to.deep.include({
      message: 'five four two four',
      appname: 'myapp',
      procid: 4242,
      msgid: 'ID47',
      facility: 'local4',
      severity: 'warning',
      version: 1,
      hostname: HOST,
      host: HOST,
      source_ip: '127.0.0.1',
      source_type: 'syslog',
    });
    expect(f['zoo@32473']).to.deep.equal({ tiger: 'hungry', lion: 'asleep' });
    expect(f.timeQuality).to.deep.equal({ tzKnown: '1', isSynced: '0' });
    // the message's own time (microseconds on the wire), not the receive time
    expect(f.timestamp).to.be.instanceOf(Timestamp);
    expect((f.timestamp as Timestamp).ms).to.be.within(before - 1000, Date.now());
    expect(r.events()[0]!.meta.sourceType).to.equal('syslog');
    expect(r.ctx.metric('component_received_bytes_total', { protocol: 'tcp' })).to.be.greaterThan(100);
    expect(r.ctx.metric('component_errors_total')).to.equal(0);
  });

  it('logger --tcp --rfc3164 (newline framing): tag[pid], facility and severity names, a year-less timestamp in this year', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    await loggerTo(r.port, ['--tcp', '--rfc3164', '-t', 'oldapp', '--id=7', '-p', 'auth.crit', 'three one six four']);
    await loggerTo(r.port, ['--tcp', '--rfc3164', '-t', 'oldapp', '-p', 'mail.info', 'second message']);
    await until(() => r.events().length === 2, 5000, 'two events');
    const [a, b] = r.events().map((e) => e.fields);
    expect(a).to.deep.include({ message: 'three one six four', appname: 'oldapp', procid: 7, facility: 'auth', severity: 'crit', hostname: HOST, host: HOST, source_ip: '127.0.0.1' });
    expect(a).to.not.have.property('version');
    expect(a).to.not.have.property('msgid');
    expect(b).to.deep.include({ message: 'second message', appname: 'oldapp', facility: 'mail', severity: 'info' });
    expect(b).to.not.have.property('procid');
    const ts = a!.timestamp as Timestamp;
    expect(ts.ms % 1000, 'RFC 3164 has whole seconds').to.equal(0);
    expect(new Date(ts.ms).getUTCFullYear()).to.equal(new Date().getUTCFullYear());
  });

  it('logger --udp: one message per datagram; udp bytes counted; source_ip is the sender', async () => {
    const r = await start({ mode: 'udp', address: '127.0.0.1:0' });
    await loggerTo(r.port, ['--udp', '--rfc5424=notq', '--msgid', 'UDP1', '-t', 'uapp', 'over udp']);
    await loggerTo(r.port, ['--udp', '--rfc3164', '-t', 'uapp', 'bsd over udp']);
    await until(() => r.events().length === 2, 5000, 'two events');
    const [a, b] = r.events().map((e) => e.fields);
    expect(a).to.deep.include({ message: 'over udp', msgid: 'UDP1', appname: 'uapp', version: 1, source_ip: '127.0.0.1', host: HOST, source_type: 'syslog' });
    expect(b).to.deep.include({ message: 'bsd over udp', appname: 'uapp', source_ip: '127.0.0.1' });
    expect(r.ctx.metric('component_received_bytes_total', { protocol: 'udp' })).to.be.greaterThan(40);
  });

  it('tcp: octet counting and newline framing are told apart per frame on one connection', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    const one = '<13>1 2024-05-01T10:00:00.250Z web app 7 - - first\nstill first';
    const two = '<14>May  1 10:00:01 web app[8]: second';
    const three = '<15>1 2024-05-01T10:00:02Z web app 9 - - third';
    const wire = `${counted(one)}${two}\n${counted(three)}`;
    c.end(wire);
    await until(() => r.events().length === 3, 5000, 'three events');
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['first\nstill first', 'second', 'third']);
    expect(r.events()[0]!.fields.timestamp).to.deep.equal(Timestamp.parse('2024-05-01T10:00:00.250Z'));
    expect(r.events().map((e) => e.fields.procid)).to.deep.equal([7, 8, 9]);
    expect(r.ctx.metric('component_received_bytes_total', { protocol: 'tcp' })).to.equal(Buffer.byteLength(wire));
    // one lag observation per message, from its own timestamp
    expect(r.ctx.metric('source_lag_time_seconds')).to.equal(3);
  });

  it('a message that is not syslog is counted as a decode error and dropped; the connection goes on', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    c.end('just some text\n<13>no timestamp here\n<13>1 - h app - - - fine\n');
    await until(() => r.events().length === 1, 5000, 'the valid message');
    await until(() => r.ctx.metric('component_errors_total') === 2, 5000, 'two errors');
    expect(r.events()[0]!.fields.message).to.equal('fine');
    expect(r.ctx.metric('component_errors_total', { error_code: 'decoder_deserialize', error_type: 'parser_failed', stage: 'processing' })).to.equal(2);
    expect(r.ctx.lines.some((l) => l.includes('Failed deserializing frame.'))).to.equal(true);
  });

  it('a message without a timestamp gets the receive time; without a hostname, host is the peer', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    const before = Date.now();
    c.end('<13>1 - - app - - - no time, no host\n');
    await until(() => r.events().length === 1, 5000, 'one event');
    const f = r.events()[0]!.fields;
    expect(f).to.deep.include({ message: 'no time, no host', host: '127.0.0.1', source_ip: '127.0.0.1' });
    expect(f).to.not.have.property('hostname');
    expect((f.timestamp as Timestamp).ms).to.be.within(before - 1, Date.now() + 1);
  });

  it('max_length: longer octet-counted frames and lines are discarded and counted; shorter ones pass', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', max_length: 60 });
    const c = await tcpClient(r.port);
    const short = '<13>1 - h app - - - short';
    const long = `<13>1 - h app - - - ${'x'.repeat(80)}`;
    c.end(`${counted(long)}${counted(short)}${long}\n${short}\n`);
    await until(() => r.events().length === 2, 5000, 'two short messages');
    await until(() => r.ctx.metric('component_errors_total', { error_code: 'decoder_frame' }) === 2, 5000, 'two discards');
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['short', 'short']);
  });

  it('host_key: the host goes to that field instead of host', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', host_key: 'peer' });
    await loggerTo(r.port, ['--tcp', '--rfc5424', '--octet-count', '-t', 'k', 'keyed']);
    const c = await tcpClient(r.port);
    c.end('<13>1 - - app - - - anonymous\n');
    await until(() => r.events().length === 2, 5000, 'two events');
    const byMessage = Object.fromEntries(r.events().map((e) => [e.fields.message as string, e.fields]));
    expect(byMessage.keyed).to.deep.include({ peer: HOST, hostname: HOST });
    expect(byMessage.anonymous).to.deep.include({ peer: '127.0.0.1' });
    for (const f of Object.values(byMessage)) expect(f).to.not.have.property('host');
  });

  it('connection_limit leaves extra connections unread until a slot frees', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', connection_limit: 1 });
    const a = await tcpClient(r.port);
    a.write('<13>1 - h app - - - from a\n');
    await until(() => r.events().length === 1, 5000, 'a');
    const b = await tcpClient(r.port);
    b.write('<13>1 - h app - - - from b\n');
    await new Promise((res) => setTimeout(res, 100));
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['from a']);
    a.end();
    await until(() => r.events().length === 2, 5000, 'b after a closed');
    expect(r.events()[1]!.fields.message).to.equal('from b');
    b.destroy();
  });

  it('keepalive.time_secs turns TCP keepalive on for accepted connections', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', keepalive: { time_secs: 7 } });
    await loggerTo(r.port, ['--tcp', '--rfc5424', '-t', 'ka', 'alive']);
    await until(() => r.events().length === 1, 5000, 'one event');
    // the kernel's view of the accepted socket: its keepalive timer runs (`ss -o` prints timer:(keepalive,…))
    const c = await tcpClient(r.port);
    await until(() => /timer:\(keepalive/.test(ssAccepted(r.port, c.localPort)), 5000, 'keepalive timer on the accepted socket');
    // about 7 s to the first probe (the system default would be 7200 s)
    expect(ssAccepted(r.port, c.localPort)).to.match(/timer:\(keepalive,[67](\.\d+)?(ms|s|sec),/);
    c.destroy();
  });

  it('without keepalive the accepted socket has no keepalive timer', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    c.write('<13>1 - h app - - - x\n');
    await until(() => r.events().length === 1, 5000, 'one event');
    expect(ssAccepted(r.port, c.localPort)).to.not.match(/keepalive/);
    c.destroy();
  });

  it('receive_buffer_bytes sizes the UDP socket (the kernel doubles it, socket(7))', async () => {
    const r = await start({ mode: 'udp', address: '127.0.0.1:0', receive_buffer_bytes: 8192 });
    expect(ssUdpReceiveBuffer(r.port)).to.equal(16384);
    const d = await start({ mode: 'udp', address: '127.0.0.1:0' });
    expect(ssUdpReceiveBuffer(d.port)).to.not.equal(16384);
  });

  it('receive_buffer_bytes on tcp is accepted with one warning that it has no effect', async () => {
    const warning = 'receive_buffer_bytes has no effect on tcp';
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0', receive_buffer_bytes: 65536 });
    expect(r.ctx.lines.filter((l) => l.includes(warning))).to.have.length(1);
    await loggerTo(r.port, ['--tcp', '--rfc5424', '-t', 'rb', 'still read']);
    await until(() => r.events().length === 1, 5000, 'one event');
    const d = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    expect(d.ctx.lines.filter((l) => l.includes(warning))).to.deep.equal([]);
  });

  it('unix: logger --socket writes to the stream socket; host and source_ip are the socket path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-syslog-'));
    const path = join(dir, 'syslog.sock');
    try {
      const r = await start({ mode: 'unix', path });
      await logger(['--socket', path, '--rfc5424=notq', '-t', 'local', '--msgid', 'U1', 'via unix']);
      await until(() => r.events().length === 1, 5000, 'unix message');
      expect(r.events()[0]!.fields).to.deep.include({ message: 'via unix', appname: 'local', msgid: 'U1', hostname: HOST, host: HOST, source_ip: path });
      expect(r.ctx.metric('component_received_bytes_total', { protocol: 'unix' })).to.be.greaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a closed output gate pauses the connection (the sender is pushed back); reopening delivers everything', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    r.ctx.gate.close();
    const frame = counted(`<13>1 - h app - - - ${'y'.repeat(1000)}`);
    const count = 16_000;
    const total = Buffer.byteLength(frame) * count;
    c.write(frame.repeat(count));
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
    await until(() => r.events().length === count, 10_000, 'every message after reopening');
    c.destroy();
  });

  it('shutdown half-closes connections and completes once they end', async () => {
    const r = await start({ mode: 'tcp', address: '127.0.0.1:0' });
    const c = await tcpClient(r.port);
    const ended = new Promise<void>((res) => c.on('end', () => res()));
    c.write(counted('<13>1 - h app - - - before'));
    await until(() => r.events().length === 1, 5000, 'before');
    r.ctx.shutdown.next();
    await ended;
    c.end(counted('<13>1 - h app - - - after'));
    await until(() => r.completed(), 5000, 'completion');
    expect(r.events().map((e) => e.fields.message)).to.deep.equal(['before', 'after']);
  });

  describe('config', () => {
    const messages = (x: Record<string, unknown>) =>
      (v.safeParse(SyslogSourceConfig, { type: 'syslog', ...x }).issues ?? []).flatMap((i) => mapIssue(SyslogSourceConfig, i)).map((m) => `${m.path}: ${m.message}`);
    const table: [string, Record<string, unknown>, string][] = [
      ['mode is required', { address: '0.0.0.0:514' }, 'mode: missing required option'],
      ['modes as Vector names them', { mode: 'unix_stream', path: '/tmp/x' }, 'mode: must be one of "tcp", "udp", "unix"; got "unix_stream"'],
      ['tcp needs an address', { mode: 'tcp' }, 'address: address is required when mode is "tcp"'],
      ['udp needs an address', { mode: 'udp' }, 'address: address is required when mode is "udp"'],
      ['unix needs a path', { mode: 'unix' }, 'path: path is required when mode is "unix"'],
      ['bad address', { mode: 'tcp', address: 'nope' }, 'address: "nope" is not host:port'],
      ['path only for unix', { mode: 'tcp', address: '0.0.0.0:1', path: '/tmp/x' }, 'path: path applies only to unix (mode is "tcp")'],
      ['address not for unix', { mode: 'unix', path: '/tmp/x', address: '0.0.0.0:1' }, 'address: address applies only to tcp and udp (mode is "unix")'],
      ['tls only for tcp', { mode: 'udp', address: '0.0.0.0:1', tls: { enabled: false } }, 'tls: tls applies only to tcp (mode is "udp")'],
      ['connection_limit only for tcp', { mode: 'unix', path: '/tmp/x', connection_limit: 2 }, 'connection_limit: connection_limit applies only to tcp (mode is "unix")'],
      ['keepalive only for tcp', { mode: 'udp', address: '0.0.0.0:1', keepalive: { time_secs: 1 } }, 'keepalive: keepalive applies only to tcp (mode is "udp")'],
      ['receive_buffer_bytes not for unix', { mode: 'unix', path: '/tmp/x', receive_buffer_bytes: 10 }, 'receive_buffer_bytes: receive_buffer_bytes applies only to tcp and udp'],
      ['max_length is a positive integer', { mode: 'tcp', address: '0.0.0.0:1', max_length: 0 }, 'max_length:'],
      ['no shutdown_timeout_secs (Vector has none on syslog)', { mode: 'tcp', address: '0.0.0.0:1', shutdown_timeout_secs: 5 }, 'shutdown_timeout_secs: unknown option'],
      ['no decoding (the source parses syslog itself)', { mode: 'tcp', address: '0.0.0.0:1', decoding: { codec: 'json' } }, 'decoding: unknown option'],
    ];
    for (const [name, opts, expected] of table) {
      it(name, () => {
        expect(messages(opts).join('\n')).to.contain(expected);
      });
    }
    it("Vector's options weir lacks are named as such, not as typos", () => {
      for (const opt of ['permit_origin', 'socket_file_mode', 'tls_handshake_timeout_secs']) {
        const r = validateOptions(SyslogSourceConfig, { type: 'syslog', mode: 'tcp', address: '0.0.0.0:1', [opt]: 1 }, 'source', syslogSource.vectorOptions ?? []);
        expect(r.problems.map((p) => `${p.path}: ${p.message}`).join('\n'), opt).to.match(new RegExp(`^${opt}: .*not supported by weir yet`));
      }
    });
    it("defaults: Vector's max_length", () => {
      const c = v.parse(SyslogSourceConfig, { type: 'syslog', mode: 'tcp', address: '0.0.0.0:514' });
      expect(c.max_length).to.equal(102400);
      expect(messages({ mode: 'tcp', address: '0.0.0.0:514' })).to.deep.equal([]);
    });
  });
});

/** `ss` line of the source's accepted socket whose peer is the client port. */
function ssAccepted(port: number, clientPort: number | undefined): string {
  const out = execFileSync('ss', ['-t', '-n', '-o', 'state', 'established', `( sport = :${port} and dport = :${clientPort} )`], { encoding: 'utf8' });
  return out.split('\n').slice(1).join('\n');
}

/** The receive buffer (`rb` of `ss -m`) of the UDP socket bound to the port. */
function ssUdpReceiveBuffer(port: number): number {
  const out = execFileSync('ss', ['-u', '-a', '-n', '-m', `( sport = :${port} )`], { encoding: 'utf8' });
  const m = /rb(\d+)/.exec(out);
  if (!m) throw new Error(`no receive buffer in ss output: ${out}`);
  return Number(m[1]);
}
