import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { type TestServer, startTestServer } from '../helpers/http-test-server.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-threads-'));

/** Sends the text over one connection once the daemon listens. */
async function sendWhenListening(port: number, text: string): Promise<void> {
  for (const start = Date.now(); ; ) {
    try {
      await new Promise<void>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => s.end(text, resolve));
        s.once('error', reject);
      });
      return;
    } catch (e) {
      if (Date.now() - start > 30_000) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** socket -> remap -> http(ndjson), one request at a time (the server then sees them in order). */
function config(port: number, uri: string): string {
  const cfg = join(tmp, `threads-${port}.toml`);
  const lines = [
    `data_dir = "${tmp}"`,
    '[sources.in]',
    'type = "socket"',
    'mode = "tcp"',
    `address = "127.0.0.1:${port}"`,
    '[transforms.parse]',
    'type = "remap"',
    'inputs = ["in"]',
    `source = '. = {"n": to_int!(.message)}'`,
    '[sinks.out]',
    'type = "http"',
    'inputs = ["parse"]',
    `uri = "${uri}"`,
    'encoding.codec = "ndjson"',
    'request.concurrency = 1',
    'healthcheck.enabled = false',
  ];
  writeFileSync(cfg, lines.join('\n') + '\n');
  return cfg;
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `${i}\n`).join('');

describe('weir --threads 2 (the daemon)', function () {
  this.timeout(180_000);
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());
  const numbers = () => server.requests.flatMap((r) => r.body.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { n: number }).n));
  const inOrder = (records: number[], n: number) => {
    expect(records.length).to.equal(n);
    for (let i = 0; i < n; i++) if (records[i] !== i) expect.fail(`record ${i} is ${records[i]}`);
  };

  it('100,000 numbered lines of one TCP connection arrive in order at the http server, each once', async () => {
    const port = await freePort();
    const p = startWeir(['--config', config(port, server.url), '--threads', '2']);
    const n = 100_000;
    await sendWhenListening(port, numbered(n));
    await until(() => numbers().length >= n, 120_000, 'every record at the server');
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code).to.equal(0);
    inOrder(numbers(), n);
    expect(p.stderr()).to.match(/run in pipeline worker threads\. .*threads=2 segment="in -> parse -> out"/);
  });

  it('a shutdown while lines are in the workers still delivers every line read (the drain waits for them)', async () => {
    const port = await freePort();
    const p = startWeir(['--config', config(port, server.url), '--threads', '2']);
    const n = 200_000;
    // SIGINT as soon as the sender is done: most lines are then in the socket, the workers or the buffer
    await sendWhenListening(port, numbered(n));
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code).to.equal(0);
    inOrder(numbers(), n);
  });
});
