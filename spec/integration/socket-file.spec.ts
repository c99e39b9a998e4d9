import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWeir } from '../helpers/weir-process.js';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-sockfile-'));

function connectTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}
async function connectRetry(port: number, timeoutMs = 15_000): Promise<Socket> {
  const start = Date.now();
  for (;;) {
    try {
      return await connectTo(port);
    } catch (e) {
      if (Date.now() - start > timeoutMs) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
const write = (s: Socket, data: string | Buffer) => new Promise<void>((r) => (s.write(data) ? r() : s.once('drain', () => r())));
const sha256File = (p: string) =>
  new Promise<string>((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(p).on('data', (d) => h.update(d)).on('end', () => resolve(h.digest('hex'))).on('error', reject);
  });

describe('socket(tcp) -> file through the daemon', function () {
  this.timeout(240_000);

  it('100 MB of lines arrive byte-identical in the file', async () => {
    const port = await freePort();
    const out = join(tmp, 'out.log');
    const cfg = join(tmp, 'pipe.toml');
    writeFileSync(cfg, `data_dir = "${tmp}"\n[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:${port}"\n[sinks.file]\ntype = "file"\ninputs = ["in"]\npath = "${out}"\nencoding.codec = "text"\n`);
    const p = startWeir(['--config', cfg]);
    const sock = await connectRetry(port);
    const hash = createHash('sha256');
    const TARGET = 100 * 1024 * 1024;
    let sent = 0;
    let n = 0;
    while (sent < TARGET) {
      let chunk = '';
      for (let i = 0; i < 2000; i++, n++) chunk += `${n} ${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(1 + (n % 7))} ~!@#$%^&*() ${n * 7919}\n`;
      hash.update(chunk);
      sent += Buffer.byteLength(chunk);
      await write(sock, chunk);
    }
    sock.end();
    await until(() => existsSync(out) && statSync(out).size >= sent, 180_000, `the file to reach ${sent} bytes`);
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(statSync(out).size).to.equal(sent);
    expect(await sha256File(out)).to.equal(hash.digest('hex'));
    expect(p.stderr()).to.include('0 events lost');
  });

  it('SIGTERM drains what a connected peer already sent before exiting', async () => {
    const port = await freePort();
    const out = join(tmp, 'drain.log');
    const cfg = join(tmp, 'drain.toml');
    writeFileSync(cfg, `data_dir = "${tmp}"\n[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:${port}"\nshutdown_timeout_secs = 10\n[sinks.file]\ntype = "file"\ninputs = ["in"]\npath = "${out}"\nencoding.codec = "text"\n`);
    const p = startWeir(['--config', cfg]);
    const sock = await connectRetry(port);
    let text = '';
    for (let i = 0; i < 50_000; i++) text += `drain ${i}\n`;
    await write(sock, text);
    // the daemon half-closes the connection on SIGTERM; the peer then finishes and closes
    sock.on('end', () => sock.end());
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    expect(lines).to.have.length(50_000);
    expect(p.stderr()).to.include('0 events lost');
  });

  it('reload under --watch-config: changing a sink option keeps the TCP listener accepting and loses no event', async () => {
    const port = await freePort();
    const out = join(tmp, 'reload.log');
    const cfg = join(tmp, 'reload.toml');
    const text = (extra: string) =>
      `data_dir = "${tmp}"\n[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:${port}"\n[sinks.file]\ntype = "file"\ninputs = ["in"]\npath = "${out}"\nencoding.codec = "text"\n${extra}`;
    writeFileSync(cfg, text(''));
    const p = startWeir(['--config', cfg, '--watch-config']);
    const first = await connectRetry(port);
    const N = 20_000;
    let n = 0;
    const sendSome = async (s: Socket, k: number) => {
      let chunk = '';
      for (let i = 0; i < k && n < N; i++) chunk += `line ${n++}\n`;
      await write(s, chunk);
    };
    for (let i = 0; i < 50; i++) {
      await sendSome(first, 100);
      await new Promise((r) => setTimeout(r, 5));
    }
    writeFileSync(cfg, text('healthcheck.enabled = false\nidle_timeout_secs = 5\n'));
    // keep the old connection sending while the reload happens
    const deadline = Date.now() + 20_000;
    while (!p.stderr().includes('Configuration reloaded.')) {
      if (Date.now() > deadline) throw new Error(`no reload: ${p.stderr()}`);
      await sendSome(first, 20);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(p.stderr()).to.match(/changed=file/);
    const second = await connectTo(port).catch((e: Error) => {
      throw new Error(`${e.message}\n${p.stderr()}`);
    }); // the listener still accepts new connections
    while (n < N) await sendSome(n % 2 ? first : second, 100);
    first.end();
    second.end();
    const expected = N;
    await until(() => existsSync(out) && readFileSync(out, 'utf8').split('\n').length - 1 >= expected, 60_000, 'every line in the file');
    p.child.kill('SIGINT');
    await p.exited;
    const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    expect(lines).to.have.length(N);
    expect(new Set(lines).size).to.equal(N);
  });
});
