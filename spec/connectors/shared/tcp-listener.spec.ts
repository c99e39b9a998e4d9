import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { dirname, join } from 'node:path';
import { type ConnectionOptions, type TLSSocket, connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { Subscription } from 'rxjs';
import { parseListenAddress, systemdFd } from '../../../connectors/shared/listen-address.js';
import { listenerTls } from '../../../connectors/shared/listener-config.js';
import { type Connection, type StreamListenerOptions, certificateSubject, streamConnections } from '../../../connectors/shared/tcp-listener.js';
import { type TestCerts, makeTestCerts } from '../../helpers/certs.js';
import { freePort } from '../../helpers/free-port.js';
import { until } from '../../helpers/wait.js';
import { type TestSourceContext, testSourceContext } from '../sources/source-context.js';

interface Received {
  readonly conn: Connection;
  text: string;
  bytes: number;
  ended: boolean;
}

interface Running {
  readonly ctx: TestSourceContext;
  readonly received: Received[];
  readonly port: number;
  readonly completed: () => boolean;
  readonly sub: Subscription;
}

const running: Running[] = [];
const clients: Socket[] = [];

async function start(opts: Partial<StreamListenerOptions> = {}): Promise<Running> {
  const ctx = testSourceContext('socket');
  const received: Received[] = [];
  let completed = false;
  let failure: unknown;
  const sub = streamConnections(ctx, { target: { kind: 'tcp', host: '127.0.0.1', port: 0 }, shutdownTimeoutSecs: 30, ...opts }).subscribe({
    next: (conn) => {
      const r: Received = { conn, text: '', bytes: 0, ended: false };
      received.push(r);
      conn.socket.on('data', (chunk: Buffer) => {
        r.bytes += chunk.length;
        if (r.text.length < 1024) r.text += chunk.toString();
        conn.pauseIfClosed();
      });
      conn.socket.on('end', () => (r.ended = true));
    },
    complete: () => (completed = true),
    error: (err) => (failure = err),
  });
  await until(() => ctx.listeningAddress() !== undefined || failure !== undefined, 5000, 'listening');
  if (failure) throw failure;
  const addr = ctx.listeningAddress()!;
  const r: Running = { ctx, received, port: Number(addr.slice(addr.lastIndexOf(':') + 1)), completed: () => completed, sub };
  running.push(r);
  return r;
}

function tcpClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // half-open allowed: a client may keep sending after the listener's FIN (shutdown)
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => resolve(s));
    s.once('error', reject);
    clients.push(s);
  });
}

/** A TLS client; resolves at `secureConnect` (TLS 1.3: before the server has checked a client certificate). */
function tlsClient(port: number, certs: TestCerts, identity?: { crt: string; key: string }): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const options = {
      port,
      host: '127.0.0.1',
      ca: certs.read(certs.caCrt),
      allowHalfOpen: true, // passed on to the socket, missing from ConnectionOptions' type
      ...(identity ? { cert: certs.read(identity.crt), key: certs.read(identity.key) } : {}),
    };
    const s = tlsConnect(options as ConnectionOptions, () => resolve(s));
    s.once('error', reject);
    clients.push(s);
  });
}

const write = (s: Socket, data: string | Buffer) => new Promise<void>((r) => s.write(data, () => r()));
/** The server ended the connection (TLS alert or FIN); a half-open client does not close by itself. */
const refused = (s: Socket) => new Promise<void>((r) => (s.readableEnded ? r() : (s.once('end', () => r()), s.once('error', () => r()))));

/** The listener has read `text` on connection `i`: a round trip that orders what the test saw before it. */
const readOn = (r: Running, i: number, text: string) => until(() => (r.received[i]?.text ?? '').includes(text), 5000, `"${text}" on connection ${i}`);

describe('stream listener', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());
  afterEach(() => {
    for (const r of running.splice(0)) r.sub.unsubscribe();
    for (const c of clients.splice(0)) c.destroy();
  });

  it('emits each connection with its peer address and reads what the peer sends', async () => {
    const r = await start();
    const c = await tcpClient(r.port);
    const clientPort = c.localPort;
    c.end('hello\n');
    await until(() => r.received[0]?.ended === true, 5000, 'end');
    expect(r.received).to.have.length(1);
    const got = r.received[0]!;
    expect(got.text).to.equal('hello\n');
    expect(got.conn.peerHost).to.equal('127.0.0.1');
    expect(got.conn.peerPort).to.equal(clientPort);
    expect(got.conn.clientSubject).to.equal(undefined);
  });

  it('connection_limit: a connection past the limit is accepted but not read until a slot frees', async () => {
    const r = await start({ connectionLimit: 1 });
    const a = await tcpClient(r.port);
    await write(a, 'a1\n');
    await readOn(r, 0, 'a1');
    const b = await tcpClient(r.port); // accepted by the kernel and by the listener: not refused
    await write(b, 'from b\n');
    await write(a, 'a2\n');
    await readOn(r, 0, 'a2');
    expect(r.received, 'b waits unread').to.have.length(1);
    a.end();
    await readOn(r, 1, 'from b');
    expect(r.received[1]!.conn.peerPort).to.equal(b.localPort);
  });

  it('TLS: handshakes with the configured identity; no client certificate is asked for by default', async () => {
    const tls = listenerTls({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey });
    const r = await start({ tls });
    // the client checks the server certificate against the test CA (rejectUnauthorized by default);
    // its own certificate is not asked for, so no subject is known
    const c = await tlsClient(r.port, certs, { crt: certs.clientCrt, key: certs.clientKey });
    const clientPort = c.localPort;
    c.end('over tls\n');
    await until(() => r.received[0]?.ended === true, 5000, 'end');
    expect(r.received[0]!.text).to.equal('over tls\n');
    expect(r.received[0]!.conn.clientSubject).to.equal(undefined);
    expect(r.received[0]!.conn.peerPort).to.equal(clientPort);
  });

  it('mTLS: verify_certificate refuses a client without a certificate and one from another CA', async () => {
    const tls = listenerTls({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey, ca_file: certs.caCrt, verify_certificate: true });
    const r = await start({ tls });
    const bare = await tlsClient(r.port, certs);
    bare.on('error', () => {});
    bare.write('not accepted\n');
    await refused(bare);
    const stranger = await tlsClient(r.port, certs, { crt: certs.strangerCrt, key: certs.strangerKey });
    stranger.on('error', () => {});
    stranger.write('not accepted either\n');
    await refused(stranger);
    const good = await tlsClient(r.port, certs, { crt: certs.clientCrt, key: certs.clientKey });
    good.end('trusted\n');
    await until(() => r.received[0]?.ended === true, 5000, 'trusted client');
    expect(r.received.map((x) => x.text)).to.deep.equal(['trusted\n']);
    expect(r.received[0]!.conn.clientSubject).to.equal('CN=weir-client');
    await until(() => r.ctx.metric('component_errors_total', { error_type: 'connection_failed' }) === 2, 5000, 'two refusals counted');
  });

  it('TLS past connection_limit: the handshake itself waits for a slot', async () => {
    const tls = listenerTls({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey });
    const r = await start({ tls, connectionLimit: 1 });
    const a = await tlsClient(r.port, certs);
    await write(a, 'a1\n');
    await readOn(r, 0, 'a1');
    let bSecure = false;
    const b = tlsClient(r.port, certs).then((s) => {
      bSecure = true;
      return s;
    });
    await write(a, 'a2\n');
    await readOn(r, 0, 'a2');
    expect(bSecure, 'no handshake while the slot is taken').to.equal(false);
    a.end();
    (await b).end('b\n');
    await readOn(r, 1, 'b');
  });

  for (const withTls of [false, true]) {
    it(`shutdown${withTls ? ' (TLS)' : ''}: stops accepting, half-closes connections, reads what peers still send, completes when they close`, async () => {
      const tls = withTls ? listenerTls({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey }) : undefined;
      const r = await start({ tls });
      const c = withTls ? await tlsClient(r.port, certs) : await tcpClient(r.port);
      const gotEnd = new Promise<void>((res) => c.on('end', () => res()));
      await write(c, 'before\n');
      await readOn(r, 0, 'before');
      r.ctx.shutdown.next();
      await gotEnd; // the listener sent FIN (TLS: close_notify, then FIN)
      const refused = await new Promise<boolean>((res) => {
        const s = connect(r.port, '127.0.0.1', () => res(false));
        s.on('error', () => res(true));
      });
      expect(refused, 'no new connections after shutdown').to.equal(true);
      expect(r.completed()).to.equal(false);
      c.end('after\n');
      await until(() => r.completed(), 5000, 'completion');
      expect(r.received[0]!.text).to.equal('before\nafter\n');
    });
  }

  it('a closed gate stops reading: the sender backs up, and everything arrives once it opens', async () => {
    const r = await start();
    const c = await tcpClient(r.port);
    r.ctx.gate.close();
    const total = 16 * 1024 * 1024;
    let flushed = false;
    c.write(Buffer.alloc(total, 'x'), () => (flushed = true));
    await until(() => (r.received[0]?.bytes ?? 0) > 0, 5000, 'first chunk');
    // wait until the sender stalls: the kernel buffers are full because nobody reads
    let last = -1;
    await until(
      () => {
        const now = c.bytesWritten - c.writableLength;
        const stalled = now === last;
        last = now;
        return stalled;
      },
      10_000,
      'the sender to stall',
    );
    const readWhileClosed = r.received[0]!.bytes;
    expect(readWhileClosed, 'read at most a chunk or so while closed').to.be.lessThan(total / 4);
    expect(flushed, 'the sender cannot flush').to.equal(false);
    expect(c.writableLength, 'the sender holds the rest').to.be.greaterThan(total / 4);
    r.ctx.gate.open();
    await until(() => r.received[0]!.bytes === total, 10_000, 'all bytes after opening');
    await until(() => flushed, 5000, 'flushed');
  });

  it('unix socket: the peer host is the socket path; the file goes away on unsubscribe', async () => {
    const path = join(certs.dir, 'listen.sock');
    const ctx = testSourceContext('socket');
    const got: Connection[] = [];
    const sub = streamConnections(ctx, { target: { kind: 'unix', path }, shutdownTimeoutSecs: 1 }).subscribe((conn) => got.push(conn));
    await until(() => ctx.listeningAddress() !== undefined, 5000, 'listening');
    const c = connect(path);
    clients.push(c);
    await until(() => got.length === 1, 5000, 'connection');
    expect(got[0]!.peerHost).to.equal(path);
    expect(got[0]!.peerPort).to.equal(undefined);
    sub.unsubscribe();
    expect(existsSync(path)).to.equal(false);
  });

  it('systemd: fails clearly when no socket was passed', async () => {
    const ctx = testSourceContext('socket');
    const err = await new Promise<Error>((res) =>
      streamConnections(ctx, { target: { kind: 'systemd', index: 0 }, shutdownTimeoutSecs: 1 }).subscribe({ error: (e: Error) => res(e) }),
    );
    expect(err.message).to.contain('systemd socket 1 was not passed');
  });

  describe('systemd socket activation (systemd-socket-activate)', () => {
    const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'systemd-listener.ts');

    /** Starts the fixture under systemd-socket-activate on two sockets; it runs once a peer connects. */
    async function activate(address: string) {
      const ports = [await freePort(), await freePort()];
      const child = spawn('systemd-socket-activate', [...ports.flatMap((p) => ['-l', `127.0.0.1:${p}`]), process.execPath, '--import', 'tsx', fixture, address], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
      child.on('error', (e) => (err += `spawn failed: ${e.message}`));
      await until(() => /Listening on .*:\d+ as 4/.test(err) || err.includes('spawn failed'), 10_000, 'systemd-socket-activate to listen');
      if (err.includes('spawn failed')) throw new Error(`systemd-socket-activate is required (Debian package systemd): ${err}`);
      return { ports, output: () => out, exited, stop: () => child.kill() };
    }

    it('systemd#2 listens on the second passed socket', async () => {
      const a = await activate('systemd#2');
      try {
        const c = await tcpClient(a.ports[1]!);
        c.end('activated\n');
        expect(await a.exited).to.equal(0);
        expect(a.output()).to.equal('DATA 127.0.0.1 activated\n');
      } finally {
        a.stop();
      }
    });

    it('systemd#3 with two passed sockets is an error', async () => {
      const a = await activate('systemd#3');
      try {
        const c = await tcpClient(a.ports[0]!);
        c.on('error', () => {});
        expect(await a.exited).to.equal(1);
        expect(a.output()).to.equal('ERROR systemd socket 3 was not passed (LISTEN_FDS=2)\n');
      } finally {
        a.stop();
      }
    });
  });

  describe('addresses', () => {
    it('parses host:port and systemd forms', () => {
      expect(parseListenAddress('127.0.0.1:9000', { systemd: true })).to.deep.equal({ kind: 'tcp', host: '127.0.0.1', port: 9000 });
      expect(parseListenAddress('[::1]:24224', { systemd: false })).to.deep.equal({ kind: 'tcp', host: '::1', port: 24224 });
      expect(parseListenAddress('systemd', { systemd: true })).to.deep.equal({ kind: 'systemd', index: 0 });
      expect(parseListenAddress('systemd#1', { systemd: true })).to.deep.equal({ kind: 'systemd', index: 0 });
      expect(parseListenAddress('systemd#3', { systemd: true })).to.deep.equal({ kind: 'systemd', index: 2 });
      expect(parseListenAddress('systemd#0', { systemd: true })).to.contain('counts from 1');
      expect(parseListenAddress('systemd#x', { systemd: true })).to.contain('counts from 1');
      expect(parseListenAddress('systemd', { systemd: false })).to.equal('"systemd" is not host:port');
    });

    it('maps a systemd socket to its descriptor from 3, checked against LISTEN_FDS and LISTEN_PID', () => {
      expect(systemdFd(0, { LISTEN_FDS: '2' }, 42)).to.equal(3);
      expect(systemdFd(1, { LISTEN_FDS: '2', LISTEN_PID: '42' }, 42)).to.equal(4);
      expect(systemdFd(2, { LISTEN_FDS: '2' }, 42)).to.equal('systemd socket 3 was not passed (LISTEN_FDS=2)');
      expect(systemdFd(0, {}, 42)).to.equal('systemd socket 1 was not passed (LISTEN_FDS=unset)');
      expect(systemdFd(0, { LISTEN_FDS: '1', LISTEN_PID: '7' }, 42)).to.contain('passed to process 7');
    });

    it('formats a client certificate subject as CN, OU, O, L, ST, C', () => {
      const sock = { getPeerCertificate: () => ({ subject: { C: 'DE', O: 'Org', CN: 'host-1', OU: ['a', 'b'] } }) } as unknown as TLSSocket;
      expect(certificateSubject(sock)).to.equal('CN=host-1,OU=b,O=Org,C=DE');
      expect(certificateSubject({ getPeerCertificate: () => ({}) } as unknown as TLSSocket)).to.equal(undefined);
    });
  });
});
