import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-transforms-'));
let n = 0;

function connectTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}
/** The daemon binds its listener a moment after start; retry until it accepts. */
async function connectRetry(port: number, p: WeirProcess, timeoutMs = 20_000): Promise<Socket> {
  const start = Date.now();
  for (;;) {
    try {
      return await connectTo(port);
    } catch (e) {
      if (p.child.exitCode !== null) throw new Error(`weir exited: ${p.stderr()}`);
      if (Date.now() - start > timeoutMs) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
const send = (s: Socket, lines: string[]) => new Promise<void>((r) => (s.write(lines.map((l) => l + '\n').join('')) ? r() : s.once('drain', () => r())));

interface Pipeline {
  p: WeirProcess;
  sock: Socket;
  /** The JSON lines the file sink wrote so far. */
  lines: () => Record<string, unknown>[];
  /** SIGINT; checks the exit code and returns every line the file holds. */
  stop: () => Promise<Record<string, unknown>[]>;
}

/**
 * socket(tcp) -> `transform` -> file (json codec). The per-connection `port` and the receive
 * `timestamp` differ from run to run, so the sink leaves them out and the output is exact.
 */
async function pipeline(transform: Record<string, unknown>, decoding: 'bytes' | 'json'): Promise<Pipeline> {
  const port = await freePort();
  const id = n++;
  const out = join(tmp, `out-${id}.json`);
  const cfg = join(tmp, `pipe-${id}.json`);
  const config = {
    data_dir: tmp,
    sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}`, decoding: { codec: decoding } } },
    transforms: { t: { inputs: ['in'], ...transform } },
    sinks: { file: { type: 'file', inputs: ['t'], path: out, encoding: { codec: 'json', except_fields: ['port', 'timestamp', 'timestamp_end'] } } },
  };
  writeFileSync(cfg, JSON.stringify(config));
  const p = startWeir(['--config', cfg]);
  const sock = await connectRetry(port, p);
  const lines = () =>
    existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  const stop = async () => {
    sock.end();
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    return lines();
  };
  return { p, sock, lines, stop };
}

describe('transforms in a running daemon: socket(tcp) -> transform -> file', function () {
  this.timeout(60_000);

  it('tokenizer splits Apache common log lines into typed fields', async () => {
    const { p, sock, lines, stop } = await pipeline(
      {
        type: 'tokenizer',
        field_names: ['remote_host', 'ident', 'user', 'time', 'request', 'status', 'bytes'],
        types: { status: 'int', bytes: 'int', time: 'timestamp' },
      },
      'bytes',
    );
    await send(sock, [
      '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
      '10.1.2.3 - - [10/Oct/2000:13:55:37 +0000] "POST /login HTTP/1.1" 302 -',
      // a token that is not an integer leaves its field unset; the event still passes
      '192.168.0.9 id7 "jane doe" [01/Jan/2024:00:00:00 +0100] "GET /a\\"b HTTP/2" OK 17',
    ]);
    await until(() => lines().length >= 3, 20_000, `3 lines in the file; stderr: ${p.stderr()}`);
    const out = await stop();
    expect(out).to.deep.equal([
      { host: '127.0.0.1', source_type: 'socket', remote_host: '127.0.0.1', ident: null, user: 'frank', time: '2000-10-10T20:55:36Z', request: 'GET /apache_pb.gif HTTP/1.0', status: 200, bytes: 2326 },
      { host: '127.0.0.1', source_type: 'socket', remote_host: '10.1.2.3', ident: null, user: null, time: '2000-10-10T13:55:37Z', request: 'POST /login HTTP/1.1', status: 302, bytes: null },
      { host: '127.0.0.1', source_type: 'socket', remote_host: '192.168.0.9', ident: 'id7', user: 'jane doe', time: '2023-12-31T23:00:00Z', request: 'GET /a"b HTTP/2', bytes: 17 },
    ]);
    expect(p.stderr()).to.include('Could not convert types.').and.include('name=status').and.include('0 events lost');
  });

  it('reduce merges per group_by until ends_when (search_query); SIGINT flushes the open transaction', async () => {
    const { p, sock, lines, stop } = await pipeline(
      {
        type: 'reduce',
        group_by: ['txn'],
        ends_when: { type: 'search_query', source: '@stage:end' },
        merge_strategies: { msg: 'concat', stage: 'retain', code: 'max', path: 'flat_unique' },
        expire_after_ms: 60_000,
      },
      'json',
    );
    const ev = (o: Record<string, unknown>) => JSON.stringify(o);
    await send(sock, [
      ev({ txn: 'a', stage: 'start', msg: 'open', ms: 5, code: 200, path: '/x' }),
      ev({ txn: 'b', stage: 'start', msg: 'hello', ms: 1, code: 500, path: '/y' }),
      ev({ txn: 'c', stage: 'start', msg: 'left', ms: 2, code: 201, path: '/z' }),
      ev({ txn: 'a', stage: 'mid', msg: 'read', ms: 7, code: 404, path: '/x' }),
      ev({ txn: 'b', stage: 'end', msg: 'bye', ms: 3, code: 200, path: '/w' }),
      ev({ txn: 'c', stage: 'mid', msg: 'open', ms: 4, code: 204, path: '/z' }),
      ev({ txn: 'a', stage: 'end', msg: 'close', ms: 11, code: 200, path: '/v' }),
    ]);
    // a and b end; c stays open: only the shutdown flushes it (expiry is 60 s away)
    await until(() => lines().length >= 2, 20_000, `2 merged events; stderr: ${p.stderr()}`);
    expect(lines().map((l) => l.txn)).to.deep.equal(['b', 'a']);
    // flat_unique leaves the order open, as in Vector
    const out = (await stop()).map((e) => ({ ...e, path: (e.path as string[]).sort() }));
    const common = { host: '127.0.0.1', source_type: 'socket' };
    expect(out).to.deep.equal([
      { ...common, txn: 'b', stage: 'end', msg: 'hello bye', ms: 4, code: 500, path: ['/w', '/y'] },
      { ...common, txn: 'a', stage: 'end', msg: 'open read close', ms: 23, code: 404, path: ['/v', '/x'] },
      { ...common, txn: 'c', stage: 'mid', msg: 'left open', ms: 6, code: 204, path: ['/z'] },
    ]);
    expect(p.stderr()).to.match(/transform\s+t\s+received=7 sent=3 discarded=0/).and.match(/sink\s+file\s+received=3 sent=3 discarded=0/);
  });

  it('reduce flushes a transaction after expire_after_ms without events while the daemon runs', async () => {
    const { p, sock, lines, stop } = await pipeline(
      { type: 'reduce', group_by: ['txn'], ends_when: '.stage == "end"', expire_after_ms: 300, flush_period_ms: 50 },
      'json',
    );
    await send(sock, ['{"txn":"x","n":1}', '{"txn":"y","n":10}', '{"txn":"x","n":2}']);
    const t0 = Date.now();
    await until(() => lines().length >= 2, 20_000, `2 expired events; stderr: ${p.stderr()}`);
    expect(Date.now() - t0).to.be.at.least(250);
    const out = await stop();
    const sorted = out.sort((a, b) => String(a.txn).localeCompare(String(b.txn)));
    expect(sorted).to.deep.equal([
      { host: '127.0.0.1', source_type: 'socket', txn: 'x', n: 3 },
      { host: '127.0.0.1', source_type: 'socket', txn: 'y', n: 10 },
    ]);
    expect(p.stderr()).to.match(/transform\s+t\s+received=3 sent=2 discarded=0/);
  });

  it('throttle passes threshold events per key_field per window, refills after the window, exclude bypasses it', async () => {
    const { p, sock, lines, stop } = await pipeline(
      { type: 'throttle', threshold: 3, window_secs: 1.5, key_field: '{{ service }}', exclude: '.level == "error"' },
      'json',
    );
    const burst = (tag: string) => [
      ...Array.from({ length: 10 }, (_, i) => JSON.stringify({ service: 'api', level: 'info', seq: `${tag}${i}` })),
      ...Array.from({ length: 5 }, (_, i) => JSON.stringify({ service: 'db', level: 'info', seq: `${tag}${i}` })),
      ...Array.from({ length: 2 }, (_, i) => JSON.stringify({ service: 'web', level: 'info', seq: `${tag}${i}` })),
      ...Array.from({ length: 4 }, (_, i) => JSON.stringify({ service: 'api', level: 'error', seq: `${tag}e${i}` })),
    ];
    await send(sock, burst('a'));
    // per burst: api 3, db 3, web 2, and the 4 excluded errors
    await until(() => lines().length >= 12, 20_000, `12 events; stderr: ${p.stderr()}`);
    // a full window later every bucket is full again (real time: the daemon runs on its own clock)
    await new Promise((r) => setTimeout(r, 1600));
    await send(sock, burst('b'));
    await until(() => lines().length >= 24, 20_000, `24 events; stderr: ${p.stderr()}`);
    const out = await stop();
    const seqs = (service: string, level = 'info') => out.filter((e) => e.service === service && e.level === level).map((e) => e.seq);
    expect(out).to.have.length(24);
    expect(seqs('api')).to.deep.equal(['a0', 'a1', 'a2', 'b0', 'b1', 'b2']);
    expect(seqs('db')).to.deep.equal(['a0', 'a1', 'a2', 'b0', 'b1', 'b2']);
    expect(seqs('web')).to.deep.equal(['a0', 'a1', 'b0', 'b1']);
    expect(seqs('api', 'error')).to.deep.equal(['ae0', 'ae1', 'ae2', 'ae3', 'be0', 'be1', 'be2', 'be3']);
    expect(p.stderr()).to.match(/transform\s+t\s+received=42 sent=24 discarded=18/).and.include('0 events lost');
  });
});
