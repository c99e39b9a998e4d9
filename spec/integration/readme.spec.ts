/**
 * README.md: short enough to read in minutes, with the sections other pages and engineers rely on,
 * and its first pipeline (socket -> remap -> file) run step by step through the daemon.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { repoRoot, runWeir, startWeir } from '../helpers/weir-process.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The text of a `## ` section, up to the next one. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `section "${title}"`).to.be.greaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

const bash = (line: string) => new Promise<number>((resolve) => execFile('bash', ['-c', line], (err) => resolve(err ? ((err as { code?: number }).code ?? 1) : 0)));

describe('README.md', function () {
  this.timeout(120_000);

  it('is at most 300 lines and keeps the sections other pages link to', () => {
    expect(readme.split('\n').length).to.be.at.most(300);
    for (const title of ['Two commands', 'A first pipeline in five minutes', 'Installing the `weir` command', 'Coming from Vector', 'Components', 'Dependencies']) section(title);
    expect(section('Exit codes and the final account').replace(/^\n## .*\n/, '').trim()).to.match(/final account[\s\S]*\b78\b/);
    expect(section('Dependencies')).to.include('| rxjs 7.8.2 |');
  });

  it('every link to a file of the repository points at one that exists', () => {
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).to.be.greaterThan(10);
    for (const l of links) expect(existsSync(join(repoRoot, l)), l).to.equal(true);
  });

  it('every relative link in docs/ points at a file that exists', () => {
    const pages = readdirSync(join(repoRoot, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
    expect(pages).to.include.members(['performance.md', 'guides/running.md', 'components/socket.md']);
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(repoRoot, 'docs', page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(m[1]!)) continue;
        if (!existsSync(join(repoRoot, 'docs', dirname(page), m[1]!))) broken.push(`${page} -> ${m[1]}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('the first pipeline validates, runs, and writes the remapped event; the daemon drains and exits 0', async () => {
    const text = section('A first pipeline in five minutes');
    const toml = /```toml\n([\s\S]*?)```/.exec(text)![1]!;
    const steps = /```sh\n([\s\S]*?)```/.exec(text)![1]!.split('\n');
    const send = steps.find((l) => l.includes('/dev/tcp/'))!.trim();
    expect(toml).to.include('address = "127.0.0.1:9000"').and.include('"/tmp/weir-first');
    expect(steps.some((l) => l.startsWith('weir validate first.toml'))).to.equal(true);

    const dir = mkdtempSync(join(tmpdir(), 'weir-readme-'));
    const port = await freePort();
    const cfg = join(dir, 'first.toml');
    writeFileSync(cfg, toml.replaceAll('127.0.0.1:9000', `127.0.0.1:${port}`).replaceAll('/tmp/weir-first', dir));

    const valid = await runWeir(['validate', cfg]);
    expect(valid.code, valid.stdout + valid.stderr).to.equal(0);

    const daemon = startWeir(['--config', cfg]);
    try {
      const line = send.replace('/dev/tcp/127.0.0.1/9000', `/dev/tcp/127.0.0.1/${port}`);
      // the listener opens once the topology has started: retry while the connection is refused
      let sent = false;
      const started = Date.now();
      while (!sent && Date.now() - started < 60_000) sent = (await bash(line)) === 0 || (await new Promise((r) => setTimeout(r, 100)), false);
      expect(sent, daemon.stderr()).to.equal(true);
      const written = () => readdirSync(dir).filter((f) => /^events-\d{4}-\d{2}-\d{2}\.log$/.test(f));
      await until(() => written().length === 1 && readFileSync(join(dir, written()[0]!), 'utf8').endsWith('\n'), 30_000, 'the events file');
      const events = readFileSync(join(dir, written()[0]!), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events).to.have.length(1);
      expect(events[0]).to.include({ level: 'WARN', message: 'disk almost full', received_by: 'weir', source_type: 'socket' });
    } finally {
      daemon.child.kill('SIGTERM');
    }
    const { code } = await daemon.exited;
    expect(code, daemon.stderr()).to.equal(0);
    expect(daemon.stderr()).to.include('0 events lost');
  });
});
