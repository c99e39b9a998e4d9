import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWeir, startWeir } from '../helpers/weir-process.js';
import { until } from '../helpers/wait.js';
import { freePort } from '../helpers/free-port.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-life-'));

describe('daemon lifecycle', function () {
  this.timeout(60_000);

  it('gives up draining after --graceful-shutdown-limit-secs and reports the loss', async () => {
    const cfg = join(tmp, 'slow.toml');
    writeFileSync(cfg, `[sources.gen]\ntype = "demo_logs"\ninterval = 0\ncount = 20000\n[sinks.slow]\ntype = "blackhole"\ninputs = ["gen"]\nrate = 100\nprint_interval_secs = 0\nbuffer.max_events = 50000\n`);
    const p = startWeir(['--config', cfg, '--graceful-shutdown-limit-secs', '1']);
    await until(() => p.stderr().includes('weir started'), 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    // draining all 20,000 events at 100/s would take 200 s: well past any busy machine's delay
    expect(Date.now() - t0).to.be.within(900, 30_000);
    expect(code).to.equal(1);
    expect(p.stderr()).to.include('did not finish within 1 s');
    expect(p.stderr()).to.match(/[1-9]\d* events lost/);
  });

  it('--require-healthy exits non-zero when a sink health check fails; without it the daemon runs on', async () => {
    const port = await freePort(); // nothing listens there
    const cfg = join(tmp, 'unhealthy.toml');
    writeFileSync(
      cfg,
      `[sources.gen]\ntype = "demo_logs"\ninterval = 1\n[sinks.web]\ntype = "http"\ninputs = ["gen"]\nuri = "http://127.0.0.1:${port}/"\nencoding.codec = "json"\nhealthcheck.uri = "http://127.0.0.1:${port}/health"\n`,
    );
    const strict = startWeir(['--config', cfg, '--require-healthy']);
    const { code } = await strict.exited;
    expect(code).to.equal(1);
    expect(strict.stderr()).to.include('Healthcheck failed.').and.include('component_id=web');
    // the checks run before the topology starts: no source reads, no sink writes
    expect(strict.stderr()).not.to.include('weir started');
    const piped = join(tmp, 'unhealthy-stdin.toml');
    writeFileSync(
      piped,
      `[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "text"\n` +
        `[sinks.web]\ntype = "http"\ninputs = ["in"]\nuri = "http://127.0.0.1:${port}/"\nencoding.codec = "json"\nhealthcheck.uri = "http://127.0.0.1:${port}/health"\n`,
    );
    const piping = await runWeir(['--config', piped, '--require-healthy'], { input: 'must not pass\n' });
    expect(piping.code).to.equal(1);
    expect(piping.stdout).not.to.include('must not pass');
    // the sink retries its undeliverable events forever: a short drain limit ends the run
    const lax = startWeir(['--config', cfg, '--graceful-shutdown-limit-secs', '1']);
    await until(() => lax.stderr().includes('Healthcheck failed.'), 20_000, 'the failed check to be logged');
    expect(lax.child.exitCode).to.equal(null);
    lax.child.kill('SIGINT');
    await lax.exited;
  });

  it('SIGHUP reloads the configuration: added sinks start, the source keeps running', async () => {
    const cfg = join(tmp, 'hup.toml');
    const base = `[sources.gen]\ntype = "demo_logs"\ninterval = 0.01\n[sinks.a]\ntype = "blackhole"\ninputs = ["gen"]\nprint_interval_secs = 0\n`;
    writeFileSync(cfg, base);
    const p = startWeir(['--config', cfg]);
    await until(() => p.stderr().includes('weir started'), 20_000);
    writeFileSync(cfg, base + `[sinks.b]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "text"\n`);
    p.child.kill('SIGHUP');
    // on a busy machine a reload can take a while; a timeout shows what the daemon said
    await until(() => p.stderr().includes('Configuration reloaded.'), 30_000, 'the reload').catch((err: Error) => {
      throw new Error(`${err.message}; the daemon ${p.child.exitCode === null && p.child.signalCode === null ? 'runs' : `exited (${p.child.exitCode ?? p.child.signalCode})`}; its log:\n${p.stderr()}`);
    });
    expect(p.stderr()).to.match(/added=b changed=- removed=-/);
    await until(() => p.stdout().split('\n').length > 3, 10_000, 'the new console sink to print');
    writeFileSync(cfg, base.replace('interval = 0.01', 'interval = "x"'));
    p.child.kill('SIGHUP');
    await until(() => p.stderr().includes('Reload failed'), 10_000, 'the rejected reload');
    expect(p.stderr()).to.include('sources.gen.interval');
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code).to.equal(0);
    expect(p.stderr()).to.include('0 events lost');
  });
});
