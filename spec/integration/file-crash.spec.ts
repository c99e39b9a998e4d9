/**
 * kill -9 of the daemon while the `file` source reads a file of a million lines, acknowledgements
 * on: after the restarts every line arrived at least once and none was skipped. The kill points
 * are seeded, so a failure can be run again as it was.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filePipelineConfig } from '../helpers/file-pipeline.js';
import { type TestServer, startTestServer } from '../helpers/http-test-server.js';
import { mulberry32 } from '../helpers/seeded-random.js';
import { until } from '../helpers/wait.js';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';

const LINES = 1_000_000;
const SEED = 20_251_207;

/** Line i as written: marked at both ends, so a line cut short by a kill is told apart; padded so a run lasts past a checkpoint or two. */
const line = (i: number) => `<${i}>`.padEnd(120, '.');

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
    const m = /^<(\d+)>\.*$/.exec(l);
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
    writeFileSync(cfg, filePipelineConfig(tmp, ['type = "file"', `path = "${output}"`, 'encoding.codec = "text"'], { acknowledgements: true }));
    const random = mulberry32(SEED);
    // each run is killed once it has written a seeded random share (10–50 %) of what its checkpoint
    // left to read and a checkpoint past its start was written; checkpoints are written every
    // second, so what a run read since its last one is read again
    const shares = [random(), random(), random()].map((x) => 0.1 + 0.4 * x);
    const written = () => (existsSync(output) ? statSync(output).size : 0);
    const checkpoints = join(tmp, 'files', 'checkpoints.json');
    const saved = () => (existsSync(checkpoints) ? ((JSON.parse(readFileSync(checkpoints, 'utf8')) as { checkpoints: { position: number }[] }).checkpoints[0]?.position ?? 0) : 0);
    const resumedAt: number[] = [];
    // output bytes at the start and at the kill of each run: what a run delivered past the
    // checkpoint the next run resumes from is what may arrive twice, nothing more
    const runs: { before: number; after: number }[] = [];
    for (const share of shares) {
      const before = written();
      const from = saved();
      // a run that read the whole file before its kill leaves nothing for the next ones
      if (from >= size) break;
      resumedAt.push(from);
      const left = size - from;
      const p = startWeir(['--config', cfg]);
      try {
        // and once a checkpoint past where this run began was written, so the next run resumes mid-file
        const due = () => written() - before >= share * left && saved() > from;
        await until(() => due() || p.child.exitCode !== null, 60_000, `${Math.round(share * 100)} % of the rest written and a checkpoint`);
      } finally {
        await kill(p);
      }
      expect(p.child.signalCode, p.stderr()).to.equal('SIGKILL');
      runs.push({ before, after: written() });
    }
    const lastFrom = saved();
    const last = startWeir(['--config', cfg]);
    try {
      await until(() => readFileSync(output, 'latin1').endsWith(`${line(LINES - 1)}\n`), 90_000, 'the last line');
    } finally {
      last.child.kill('SIGTERM');
      await last.exited;
    }
    const { counts, broken } = tally(readFileSync(output, 'utf8').split('\n').slice(0, -1));
    const { missing, duplicates, most } = summary(counts);
    resumedAt.push(saved());
    const percent = (x: number) => `${(x * 100).toFixed(1)} %`;
    console.log(`      kills after ${shares.map(percent).join(', ')} of what was left; runs resumed at ${resumedAt.map((x) => percent(x / size)).join(', ')} of the file`);
    // run k delivered (after - before) / BYTES lines and the next run resumed (resumedAt[k+1] -
    // resumedAt[k]) / BYTES lines further on: the difference is the most it can repeat
    const BYTES = line(0).length + 1;
    const nextFrom = (k: number) => (k + 1 < runs.length ? resumedAt[k + 1]! : lastFrom);
    const bound = runs.reduce((n, r, k) => n + Math.ceil((r.after - r.before) / BYTES) - Math.floor((nextFrom(k) - resumedAt[k]!) / BYTES), 0);
    console.log(`      ${duplicates} duplicate lines (bound: ${bound}, what the runs delivered past the checkpoints they left), ${broken} cut by a kill`);
    expect(duplicates, 'duplicates beyond what was delivered past the last checkpoints').to.be.at.most(bound + broken);
    // every restart after the first resumed from a checkpoint inside the file
    expect(resumedAt.slice(1).every((x) => x > 0)).to.equal(true);
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
      const sink = ['type = "http"', `uri = "${server.url}"`, 'encoding.codec = "text"', 'healthcheck.enabled = false', 'request.retry_initial_backoff_secs = 1'];
      writeFileSync(cfg, filePipelineConfig(tmp, sink, { acknowledgements: true }));
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
