/** deploy/systemd/weir.service: systemd accepts it, and it runs weir the way the README says. */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/weir-process.js';

const unit = readFileSync(join(repoRoot, 'deploy/systemd/weir.service'), 'utf8');
const directives = (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]!);

describe('deploy/systemd/weir.service', function () {
  this.timeout(60_000);

  it('runs as the weir user with /var/lib/weir as its state directory, reloads with SIGHUP, is hardened', () => {
    expect(directives('User')).to.deep.equal(['weir']);
    expect(directives('StateDirectory')).to.deep.equal(['weir']);
    expect(directives('ExecStart')).to.deep.equal(['/usr/bin/weir']);
    expect(directives('ExecReload')).to.include('/bin/kill -HUP $MAINPID');
    expect(directives('RestartPreventExitStatus')).to.deep.equal(['78']);
    for (const d of ['NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp']) expect(directives(d), d).to.have.length(1);
    // V8 compiles code at run time: W^X memory would kill the process
    expect(directives('MemoryDenyWriteExecute')).to.deep.equal([]);
  });

  it('systemd-analyze verify reports nothing (the systemd package, installed by scripts/test-peers.mjs)', async () => {
    // verify checks that ExecStart's program exists: point it at this checkout's bin/weir
    const dir = mkdtempSync(join(tmpdir(), 'weir-unit-'));
    const file = join(dir, 'weir.service');
    writeFileSync(file, unit.replaceAll('/usr/bin/weir', join(repoRoot, 'bin/weir')));
    const r = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile('systemd-analyze', ['verify', file], (err, _out, stderr) => resolve({ code: err ? ((err as { code?: number | string }).code === 'ENOENT' ? -1 : Number((err as { code?: number }).code ?? 1)) : 0, stderr: String(stderr) })),
    );
    expect(r.code, 'systemd-analyze is missing: install the systemd package (scripts/test-peers.mjs does, as root)').not.to.equal(-1);
    expect(r.stderr.trim()).to.equal('');
    expect(r.code).to.equal(0);
  });
});
