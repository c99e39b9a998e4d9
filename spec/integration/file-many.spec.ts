/**
 * A thousand files matched by one glob, some appended to while the daemon runs: every line
 * arrives, once, and the daemon's open descriptors and memory stay bounded. Like Vector, weir
 * keeps one descriptor open per watched file (a rotated or deleted file stays readable to its
 * end), so the bound is the number of files plus the process's own; a file let go (deleted and
 * read to its end) gives its descriptor back.
 */
import { expect } from 'chai';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filePipelineConfig } from '../helpers/file-pipeline.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

const FILES = 1000;
const LINES = 50;
/** Descriptors the daemon holds besides one per watched file (its runtime, the output file, pipes). */
const OWN_FDS = 100;
/** Peak resident memory allowed, in MiB. */
const MAX_RSS_MIB = 250;

const name = (f: number) => `app-${String(f).padStart(4, '0')}.log`;
const lines = (f: number, from: number, n: number) => Array.from({ length: n }, (_, i) => `f${f}-${from + i}`);

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]) / 1024;
  } catch {
    return 0;
  }
}

describe('file source: a thousand files in one glob, through the daemon', function () {
  this.timeout(120_000);

  it('every line arrives once, appended ones too; open descriptors stay within files + 100, memory within 250 MiB', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'weir-file-many-'));
    const logs = join(tmp, 'logs');
    mkdirSync(logs);
    const output = join(tmp, 'out.txt');
    const expected = new Set<string>();
    for (let f = 0; f < FILES; f++) {
      const l = lines(f, 0, LINES);
      for (const x of l) expected.add(x);
      writeFileSync(join(logs, name(f)), `${l.join('\n')}\n`);
    }
    const cfg = join(tmp, 'pipe.toml');
    writeFileSync(cfg, filePipelineConfig(tmp, ['type = "file"', `path = "${output}"`, 'encoding.codec = "text"']));
    const p = startWeir(['--config', cfg]);
    let maxFds = 0;
    let maxRss = 0;
    const sampler = setInterval(() => {
      maxFds = Math.max(maxFds, openFds(p.child.pid!));
      maxRss = Math.max(maxRss, rssMiB(p.child.pid!));
    }, 20);
    const received = () => (existsSync(output) ? readFileSync(output, 'utf8').split('\n').slice(0, -1) : []);
    try {
      await until(() => received().length >= FILES * LINES, 60_000, 'the lines written before the start');
      // every fifth file gets more lines while the daemon runs, in several rounds
      for (let round = 0; round < 4; round++) {
        for (let f = round; f < FILES; f += 5) {
          const l = lines(f, LINES + round * 10, 10);
          for (const x of l) expected.add(x);
          appendFileSync(join(logs, name(f)), `${l.join('\n')}\n`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      await until(() => received().length >= expected.size, 60_000, 'the appended lines');
      const whileWatching = openFds(p.child.pid!);
      // half the files deleted: read to their end, let go, their descriptors closed
      for (let f = 0; f < FILES; f += 2) rmSync(join(logs, name(f)));
      await until(() => openFds(p.child.pid!) <= FILES / 2 + OWN_FDS, 30_000, 'the descriptors of deleted files closed');
      console.log(`      peak: ${maxFds} open descriptors (${whileWatching} while watching ${FILES} files), ${maxRss.toFixed(0)} MiB resident`);
    } finally {
      clearInterval(sampler);
      p.child.kill('SIGTERM');
      await p.exited;
    }
    try {
      const got = received();
      expect(got.length, 'lines received').to.equal(expected.size);
      expect(new Set(got)).to.deep.equal(expected);
      expect(maxFds).to.be.at.most(FILES + OWN_FDS);
      expect(maxFds, 'descriptors sampled').to.be.at.least(FILES);
      expect(maxRss).to.be.at.most(MAX_RSS_MIB);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
