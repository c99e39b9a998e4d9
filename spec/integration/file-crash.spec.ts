/**
 * kill -9 of the daemon while the `file` source reads a file of a million lines, acknowledgements
 * on: after the restarts every line arrived at least once and none was skipped. The kill points
 * are seeded, so a failure can be run again as it was.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestServer, startTestServer } from '../helpers/http-test-server.js';
import { until } from '../helpers/wait.js';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';

const LINES = 1_000_000;
const SEED = 20_251_207;

/** A small seeded generator (mulberry32): the same kill points on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Line i as written: marked at both ends, so a line cut short by a kill is told apart. */
const line = (i: number) => `<${i}>`;

/** Writes the input file; returns its size in bytes. */
function writeInput(path: string): number {
  const parts: string[] = [];
  for (let i = 0; i < LINES; i++) parts.push(line(i));
  const text = `${parts.join('\n')}\n`;
  writeFileSync(path, text);
  return Buffer.byteLength(text);
}

/** How many times each line arrived, and the pieces that are no whole line. */
function tally(lines: Iterable<string>): { counts: Uint8Array; broken: number } {
  const counts = new Uint8Array(LINES);
  let broken = 0;
  for (const l of lines) {
    const m = /^<(\d+)>$/.exec(l);
    const i = m === null ? -1 : Number(m[1]);
    if (i < 0 || i >= LINES) broken++;
    else counts[i] = Math.min(255, counts[i]! + 1);
  }
  return { counts, broken };
}

function summary(counts: Uint8Array): { missing: number; duplicates: number; most: number } {
  let missing = 0;
  let duplicates = 0;
  let most = 0;
  for (const c of counts) {
    if (c === 0) missing++;
    else duplicates += c - 1;
    most = Math.max(most, c);
  }
  return { missing, duplicates, most };
}

const config = (tmp: string, sink: string[]) =>
  [`data_dir = "${tmp}"`, '[sources.files]', 'type = "file"', `include = ["${tmp}/logs/*.log"]`, 'glob_minimum_cooldown_ms = 100', ...sink, 'acknowledgements.enabled = true', ''].join('\n');

async function kill(p: WeirProcess): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exited;
}

describe('file source: kill -9 while reading a million lines, acknowledgements on', function () {
  this.timeout(180_000);
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'weir-file-crash-'));
    mkdirSync(join(tmp, 'logs'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('three kills at seeded random points, restarts: every line arrives at least once, none skipped; duplicates counted', async () => {
    const input = join(tmp, 'logs', 'big.log');
    const output = join(tmp, 'out.txt');
    const size = writeInput(input);
    const cfg = join(tmp, 'pipe.toml');
    writeFileSync(cfg, config(tmp, ['[sinks.out]', 'type = "file"', 'inputs = ["files"]', `path = "${output}"`, 'encoding.codec = "text"']));
    const random = seeded(SEED);
    // each run is killed once it has written a seeded random share (20–80 %) of what its checkpoint
    // left to read; checkpoints are written every second, so what a run read since its last one is
    // read again
    const shares = [random(), random(), random()].map((x) => 0.2 + 0.6 * x);
    const written = () => (existsSync(output) ? statSync(output).size : 0);
    const checkpoints = join(tmp, 'files', 'checkpoints.json');
    const saved = () => (existsSync(checkpoints) ? ((JSON.parse(readFileSync(checkpoints, 'utf8')) as { checkpoints: { position: number }[] }).checkpoints[0]?.position ?? 0) : 0);
    for (const share of shares) {
      const before = written();
      const left = size - saved();
      const p = startWeir(['--config', cfg]);
      try {
        await until(() => written() - before >= share * left || p.child.exitCode !== null, 60_000, `${Math.round(share * 100)} % of the rest written`);
      } finally {
        await kill(p);
      }
      expect(p.child.signalCode, p.stderr()).to.equal('SIGKILL');
    }
    const last = startWeir(['--config', cfg]);
    try {
      await until(() => readFileSync(output, 'latin1').endsWith(`${line(LINES - 1)}\n`), 90_000, 'the last line');
    } finally {
      last.child.kill('SIGTERM');
      await last.exited;
    }
    const { counts, broken } = tally(readFileSync(output, 'utf8').split('\n').slice(0, -1));
    const { missing, duplicates, most } = summary(counts);
    console.log(`      kills after ${shares.map((x) => `${(x * 100).toFixed(1)} %`).join(', ')} of what was left: ${duplicates} duplicate lines, ${broken} cut by a kill`);
    expect(missing, 'lines never delivered').to.equal(0);
    // a line is delivered at most once per run
    expect(most).to.be.at.most(shares.length + 1);
    // a kill can cut at most the one line being written
    expect(broken).to.be.at.most(shares.length);
  });

  it('a sink failing during the first run and healthy after the restart: every line arrives', async () => {
    let healthy = false;
    const server: TestServer = await startTestServer(() => (healthy ? 200 : 500));
    try {
      const input = join(tmp, 'logs', 'big.log');
      writeInput(input);
      const cfg = join(tmp, 'pipe.toml');
      const sink = ['[sinks.out]', 'type = "http"', 'inputs = ["files"]', `uri = "${server.url}"`, 'encoding.codec = "text"', 'healthcheck.enabled = false', 'request.retry_initial_backoff_secs = 1'];
      writeFileSync(cfg, config(tmp, sink));
      const first = startWeir(['--config', cfg]);
      try {
        await until(() => server.requests.length >= 3, 60_000, 'requests refused with 500');
      } finally {
        await kill(first);
      }
      const refused = server.requests.length;
      healthy = true;
      const bodies = () => server.requests.slice(refused).map((r) => r.body);
      const second = startWeir(['--config', cfg]);
      try {
        await until(() => bodies().some((b) => b.includes(line(LINES - 1))), 90_000, 'the last line');
        // the last request's response is the last acknowledgement: give the server's answer time to arrive
        await until(() => server.inFlight === 0, 10_000, 'the last response');
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      const { counts, broken } = tally(bodies().flatMap((b) => b.split('\n').filter((l) => l !== '')));
      const { missing, duplicates } = summary(counts);
      console.log(`      ${refused} requests refused in the first run; ${duplicates} duplicate lines after the restart`);
      expect(broken).to.equal(0);
      expect(missing, 'lines never delivered').to.equal(0);
    } finally {
      await server.close();
    }
  });
});
