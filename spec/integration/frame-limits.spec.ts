/**
 * Frame limits through the daemon (docs/limits.md): hostile length prefixes on a `socket` source
 * with `length_delimited` framing are counted in component_errors_total, skipped without being
 * buffered, and neither close nor stall the connection they came on or any other.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';

const MiB = 1024 * 1024;

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
const write = (s: Socket, data: Buffer) => new Promise<void>((r) => (s.write(data) ? r() : s.once('drain', () => r())));
const prefix = (n: number) => {
  const h = Buffer.alloc(4);
  h.writeUInt32BE(n);
  return h;
};
const frame = (text: string) => Buffer.concat([prefix(Buffer.byteLength(text)), Buffer.from(text)]);

/** The newest value of a counter the daemon reported about itself (internal_metrics -> file, json). */
function latestCounter(path: string, name: string, tags: Record<string, string>): number | undefined {
  if (!existsSync(path)) return undefined;
  let value: number | undefined;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.includes(name)) continue;
    const m = JSON.parse(line) as { name: string; tags?: Record<string, string>; counter?: { value: number } };
    if (m.name === name && m.counter && Object.entries(tags).every(([k, v]) => m.tags?.[k] === v)) value = m.counter.value;
  }
  return value;
}

describe('frame limits through the daemon', function () {
  this.timeout(120_000);
  let p: WeirProcess | undefined;
  afterEach(async () => {
    if (p && p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  });

  it('socket + length_delimited: a 2 GiB prefix is counted and skipped, the connection and its neighbours go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-frame-limits-'));
    const port = await freePort();
    const out = join(dir, 'out.log');
    const metrics = join(dir, 'metrics.json');
    const cfg = join(dir, 'weir.toml');
    writeFileSync(
      cfg,
      `data_dir = "${dir}"
[sources.in]
type = "socket"
mode = "tcp"
address = "127.0.0.1:${port}"
framing.method = "length_delimited"
framing.length_delimited.max_frame_length = 65536
[sources.self]
type = "internal_metrics"
scrape_interval_secs = 0.1
[sinks.file]
type = "file"
inputs = ["in"]
path = "${out}"
encoding.codec = "text"
[sinks.metrics]
type = "file"
inputs = ["self"]
path = "${metrics}"
encoding.codec = "json"
`,
    );
    p = startWeir(['--config', cfg]);
    const frameErrors = () => latestCounter(metrics, 'component_errors_total', { component_id: 'in', error_code: 'decoder_frame' }) ?? 0;
    const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);

    // A: announces 2 GiB, sends 4 MiB of it and stays open
    const a = await connectRetry(port);
    let aClosedByPeer = false;
    a.on('end', () => (aClosedByPeer = true));
    a.on('close', () => (aClosedByPeer = true));
    await write(a, prefix(0x80000000));
    const filler = Buffer.alloc(MiB, 0x61);
    for (let i = 0; i < 4; i++) await write(a, filler);

    // B: a good frame, a 1 MiB frame over the 64 KiB limit sent in full, then a good frame again
    const b = await connectTo(port);
    await write(b, frame('before'));
    await write(b, prefix(MiB));
    await write(b, filler);
    await write(b, frame('after'));
    await until(() => lines().length === 2, 30_000, `two frames from B; stderr: ${p.stderr()}`);
    expect(lines()).to.deep.equal(['before', 'after']);
    await until(() => frameErrors() === 2, 30_000, 'the two oversized frames to be counted');

    // C: a frame cut off by the end of the connection
    const c = await connectTo(port);
    await write(c, Buffer.concat([frame('c'), prefix(100), Buffer.from('only ten b')]));
    c.end();
    await until(() => frameErrors() === 3, 30_000, 'the truncated frame to be counted');
    await until(() => lines().length === 3, 30_000, 'the frame from C');
    expect(lines()).to.deep.equal(['before', 'after', 'c']);

    // A was neither closed nor did it hold up the others; more of its skipped bytes are still accepted
    expect(aClosedByPeer).to.equal(false);
    await write(a, filler);
    a.end();
    b.end();
    expect(p.stderr()).to.include('Discarding frame longer than the framing limit');
    expect(p.stderr()).to.include('Discarding frame cut off by the end of the stream.');
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
  });
});
