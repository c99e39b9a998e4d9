/**
 * The npm package: `npm pack` holds what the installed command needs and nothing of the tests;
 * installed globally into a prefix, `weir` runs from any folder.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/weir-process.js';

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

describe('the npm package', function () {
  this.timeout(600_000);
  const tmp = mkdtempSync(join(tmpdir(), 'weir-package-'));
  const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  let tarball = '';
  let files: string[] = [];

  before(async () => {
    // npm test builds first; packing with --ignore-scripts takes that dist/ instead of building again
    if (!existsSync(join(repoRoot, 'dist/bin/weir.js'))) throw new Error('dist/ is missing: run npm run build (npm test does)');
    const r = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], repoRoot);
    expect(r.code, r.stderr).to.equal(0);
    const [info] = JSON.parse(r.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = join(tmp, info!.filename);
    files = info!.files.map((f) => f.path);
  });

  it('holds the compiled code, bin/weir, the console asset, the default config and the license; no tests, sources or maps', () => {
    expect(tarball).to.match(new RegExp(`weir-${version.replace(/\./g, '\\.')}\\.tgz$`));
    for (const f of ['package.json', 'bin/weir', 'dist/bin/weir.js', 'dist/index.js', 'dist/index.d.ts', 'dist/connectors/threads/worker.js', 'lib/api/console/browser/console.js', 'dist/lib/api/console/browser/console.js', 'config/default.toml', 'LICENSE', 'README.md', 'deploy/systemd/weir.service'])
      expect(files, f).to.include(f);
    for (const prefix of ['spec/', 'dist/spec/', 'dist/scripts/', 'node_modules/', 'lib/config/', 'connectors/', 'scripts/']) expect(files.filter((f) => f.startsWith(prefix)), prefix).to.deep.equal([]);
    expect(files.filter((f) => f.endsWith('.map'))).to.deep.equal([]);
  });

  it('npm install -g --prefix puts weir on PATH; --version and validate run from another folder', async () => {
    const prefix = join(tmp, 'prefix');
    const install = await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], tmp);
    expect(install.code, install.stderr).to.equal(0);
    const weir = join(prefix, 'bin/weir');
    expect(existsSync(weir)).to.equal(true);

    const elsewhere = join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}` };
    const v = await run('weir', ['--version'], elsewhere, env);
    expect(v.code, v.stderr).to.equal(0);
    expect(v.stdout.trim()).to.equal(version);

    writeFileSync(join(elsewhere, 'p.toml'), '[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "json"\n');
    const ok = await run(weir, ['validate', 'p.toml'], elsewhere, env);
    expect(ok.code, ok.stdout + ok.stderr).to.equal(0);
    expect(ok.stdout).to.include('Validated');
    writeFileSync(join(elsewhere, 'bad.toml'), '[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "console"\ninputs = ["in"]\n');
    const bad = await run(weir, ['validate', 'bad.toml'], elsewhere, env);
    expect(bad.code).to.equal(78);
    expect(bad.stdout + bad.stderr).to.include('sinks.out.encoding');

    // the installed command runs a pipeline: stdin -> console, and drains at end of input
    const piped = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(weir, ['--config', 'p.toml'], { cwd: elsewhere, env }, (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout) }));
      child.stdin!.end('hi\n');
    });
    expect(piped.code).to.equal(0);
    expect((JSON.parse(piped.stdout.trim()) as { message: string }).message).to.equal('hi');
  });
});
