/** deploy/systemd: systemd accepts every unit, and each runs weir the way the README and docs/deploy.md say. */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/weir-process.js';

const read = (name: string) => readFileSync(join(repoRoot, 'deploy/systemd', name), 'utf8');
const directivesOf = (unit: string) => (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]!);

/** Runs systemd-analyze verify on the unit saved as `fileName`, with ExecStart pointing at this checkout's bin/weir (verify checks that it exists). */
async function verify(unit: string, fileName: string): Promise<{ code: number; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-unit-'));
  const file = join(dir, fileName);
  writeFileSync(file, unit.replaceAll('/usr/bin/weir', join(repoRoot, 'bin/weir')));
  try {
    return await new Promise((resolve) =>
      execFile('systemd-analyze', ['verify', file], (err, _out, stderr) => resolve({ code: err ? ((err as { code?: number | string }).code === 'ENOENT' ? -1 : Number((err as { code?: number }).code ?? 1)) : 0, stderr: String(stderr) })),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The checks every unit passes: the weir user, validation before start and reload, SIGHUP reload, exit 78 final, the hardening. */
function commonChecks(directives: (name: string) => string[]): void {
  expect(directives('User')).to.deep.equal(['weir']);
  expect(directives('ExecStart')).to.deep.equal(['/usr/bin/weir']);
  expect(directives('ExecStartPre')).to.deep.equal(['/usr/bin/weir validate --no-environment']);
  expect(directives('ExecReload')).to.include('/bin/kill -HUP $MAINPID');
  expect(directives('KillSignal')).to.deep.equal(['SIGTERM']);
  expect(directives('RestartPreventExitStatus')).to.deep.equal(['78']);
  for (const d of ['NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp', 'CapabilityBoundingSet']) expect(directives(d), d).to.have.length(1);
  // V8 compiles code at run time: W^X memory would kill the process
  expect(directives('MemoryDenyWriteExecute')).to.deep.equal([]);
}

const UNITS = [
  { name: 'weir.service', as: 'weir.service', config: '/etc/weir/weir.yaml', state: 'weir' },
  { name: 'weir-agent.service', as: 'weir-agent.service', config: '/etc/weir/agent.toml', state: 'weir-agent' },
  // a template is verified as one of its instances
  { name: 'weir-aggregator@.service', as: 'weir-aggregator@2.service', config: '/etc/weir/aggregator.toml', state: 'weir-aggregator/%i' },
];

describe('deploy/systemd units', function () {
  this.timeout(60_000);

  for (const u of UNITS) {
    const unit = read(u.name);
    const directives = directivesOf(unit);

    it(`${u.name}: runs as weir with ${u.config} and the state directory ${u.state}, validates first, reloads with SIGHUP, is hardened`, () => {
      commonChecks(directives);
      expect(directives('Environment')).to.include(`WEIR_CONFIG=${u.config}`);
      expect(directives('StateDirectory')).to.deep.equal([u.state]);
    });

    it(`${u.name}: systemd-analyze verify reports nothing (the systemd package, installed by scripts/test-peers.mjs)`, async () => {
      const r = await verify(unit, u.as);
      expect(r.code, 'systemd-analyze is missing: install the systemd package (scripts/test-peers.mjs does, as root)').not.to.equal(-1);
      expect(r.stderr.trim()).to.equal('');
      expect(r.code).to.equal(0);
    });
  }

  it('the agent may read the logs and the journal, and yields to the host; the aggregator instances are kept apart and always restarted', () => {
    const agent = directivesOf(read('weir-agent.service'));
    expect(agent('ReadOnlyPaths')).to.deep.equal(['/var/log']);
    expect(agent('SupplementaryGroups')[0]!.split(' ')).to.have.members(['systemd-journal', 'adm']);
    expect(agent('Nice')).to.deep.equal(['5']);
    expect(agent('Restart')).to.deep.equal(['always']);
    const agg = directivesOf(read('weir-aggregator@.service'));
    // the deploy guide's aggregator configurations put it into data_dir
    expect(agg('Environment')).to.include('WEIR_INSTANCE=%i');
    expect(agg('Restart')).to.deep.equal(['always']);
  });
});
