import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { runWeir, startWeir } from '../helpers/weir-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-account-'));
const write = (name: string, text: string) => {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
};
/** The lines from `N events lost` to the end: the account's tail. */
const accountTail = (stderr: string) => stderr.slice(stderr.lastIndexOf('\n', stderr.search(/\d+ events lost/)) + 1).trimEnd().split('\n');

describe('exit codes and the final account (daemon)', function () {
  this.timeout(90_000);

  it('a source that cannot bind its port: exit 1, the component and the reason, never "all sources finished"', async () => {
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      const cfg = write('taken.toml', `[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:${port}"\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "text"\n`);
      const r = await runWeir(['--config', cfg]);
      expect(r.code, r.stderr).to.equal(1);
      expect(r.stderr).to.include('Source failed to start.').and.include('component_id=in').and.include('EADDRINUSE');
      expect(r.stderr).to.include(`Shutting down (source "in" (socket) failed to start: listen EADDRINUSE`);
      expect(r.stderr).not.to.include('all sources finished');
      expect(r.stderr).not.to.include('weir started');
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('a sink whose buffer cannot be built: exit 78 naming the sink and the reason, before anything runs', async () => {
    const cfg = write('nodisk.toml', `data_dir = "/dev/null/weir"\n[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "text"\nbuffer.type = "disk"\nbuffer.max_size = 268435488\n`);
    const r = await runWeir(['--config', cfg], { input: 'never printed\n' });
    expect(r.code, r.stderr).to.equal(78);
    expect(r.stderr).to.include('sinks.out').and.include('ENOTDIR');
    expect(r.stdout).not.to.include('never printed');
    expect(r.stderr).not.to.include('weir started');
  });

  it('events a sink rejects are lost, with the reason; --exit-nonzero-on-loss (or its variable) exits 2', async () => {
    const cfg = write('devnull.toml', `[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "file"\ninputs = ["in"]\npath = "/dev/null/sub/out.log"\nencoding.codec = "text"\n`);
    const plain = await runWeir(['--config', cfg], { input: 'a\nb\n' });
    expect(plain.code, plain.stderr).to.equal(0);
    expect(accountTail(plain.stderr)).to.deep.equal(['2 events lost', '  2 rejected by the sink: sink "out" (file; writer_failed)']);
    const flagged = await runWeir(['--config', cfg, '--exit-nonzero-on-loss'], { input: 'a\nb\n' });
    expect(flagged.code, flagged.stderr).to.equal(2);
    expect(flagged.stderr).to.include('2 events lost and --exit-nonzero-on-loss is set; exiting with status 2.');
    expect(flagged.stderr.trimEnd().split('\n').at(-2)).to.equal('2 events lost');
    const byEnv = await runWeir(['--config', cfg], { input: 'a\n', env: { WEIR_EXIT_NONZERO_ON_LOSS: 'true' } });
    expect(byEnv.code, byEnv.stderr).to.equal(2);
  });

  it('drops by filter and by a remap abort are on purpose, shown apart; decoder discards are counted as frames', async () => {
    const cfg = write(
      'purpose.toml',
      `[sources.in]\ntype = "stdin"\ndecoding.codec = "json"\nframing.method = "newline_delimited"\nframing.newline_delimited.max_length = 40\n` +
        `[transforms.f]\ntype = "filter"\ninputs = ["in"]\ncondition = '.keep == true'\n` +
        `[transforms.r]\ntype = "remap"\ninputs = ["f"]\ndrop_on_abort = true\nsource = '''\nif .n == 2 { abort }\n'''\n` +
        `[sinks.out]\ntype = "blackhole"\ninputs = ["r"]\nprint_interval_secs = 0\n`,
    );
    const lines = [
      '{"keep":true,"n":1}',
      '{"keep":false,"n":1}',
      '{"keep":false,"n":3}',
      '{"keep":true,"n":2}',
      '{"keep":true,"n":3}',
      `{"keep":true,"n":4,"pad":"${'x'.repeat(60)}"}`,
      'not json',
    ];
    const r = await runWeir(['--config', cfg, '--exit-nonzero-on-loss'], { input: lines.join('\n') + '\n' });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/sink\s+out\s+received=2 sent=2/);
    expect(accountTail(r.stderr)).to.deep.equal([
      '0 events lost',
      '3 events dropped on purpose (filter "f": 2, remap "r": 1)',
      '2 frames discarded by decoders (stdin "in": 1 too long or cut off, 1 malformed)',
    ]);
  });

  it('a full drop_newest buffer loses events, counted with its reason and sink', async () => {
    const cfg = write(
      'full.toml',
      `[sources.gen]\ntype = "demo_logs"\nformat = "json"\ninterval = 0\ncount = 2000\n` +
        `[sinks.slow]\ntype = "blackhole"\ninputs = ["gen"]\nrate = 1000\nprint_interval_secs = 0\nbuffer.max_events = 1\nbuffer.when_full = "drop_newest"\n`,
    );
    const r = await runWeir(['--config', cfg]);
    expect(r.code, r.stderr).to.equal(0);
    const tail = accountTail(r.stderr);
    const [, lost] = /^(\d+) events lost$/.exec(tail[0]!)!;
    expect(Number(lost)).to.be.greaterThan(0);
    expect(tail.slice(1)).to.deep.equal([`  ${lost} dropped by a full buffer (when_full = drop_newest): sink "slow" (blackhole)`]);
    const [, sent] = /sink\s+slow\s+received=\d+ sent=(\d+)/.exec(r.stderr)!;
    expect(Number(sent) + Number(lost)).to.equal(2000);
  });

  it('a long drain says what it waits for; a second SIGINT exits 130 and still prints the account', async () => {
    const port = await freePort(); // nothing listens: the sink retries its events until stopped
    const cfg = write(
      'down.toml',
      `[sources.in]\ntype = "stdin"\n[sinks.web]\ntype = "http"\ninputs = ["in"]\nuri = "http://127.0.0.1:${port}/"\nencoding.codec = "json"\nhealthcheck.enabled = false\nbatch.timeout_secs = 0.1\n`,
    );
    const p = startWeir(['--config', cfg, '--graceful-shutdown-limit-secs', '60']);
    await until(() => p.stderr().includes('weir started'), 20_000, 'the daemon to start');
    p.child.stdin!.write('one\ntwo\nthree\n');
    await until(() => p.stderr().includes('retrying'), 30_000, 'the sink to retry its request');
    p.child.kill('SIGINT');
    // said once, after a few seconds of draining
    await until(() => p.stderr().includes('Still draining'), 30_000, 'the drain notice');
    expect(p.stderr()).to.include('waiting for sink "web" (3 events); forced after 60 s.');
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(130);
    expect(p.stderr().match(/Still draining/g)).to.have.length(1);
    expect(p.stderr()).to.include('SIGINT received during the drain: shutting down now without waiting for it.');
    expect(accountTail(p.stderr())).to.deep.equal(['3 events lost', '  3 shutdown forced with events still buffered: sink "web" (http)']);
  });

  it('validate names the reason of a failed health check on its line, and takes -v', async () => {
    const port = await freePort();
    const cfg = write(
      'unhealthy.toml',
      `[sources.in]\ntype = "stdin"\n[sinks.collector]\ntype = "http"\ninputs = ["in"]\nuri = "http://127.0.0.1:${port}/"\nencoding.codec = "json"\nhealthcheck.uri = "http://127.0.0.1:${port}/health"\n`,
    );
    const r = await runWeir(['validate', cfg]);
    expect(r.code).to.equal(78);
    expect(r.stdout).to.match(new RegExp(`^x Health check "collector": .*ECONNREFUSED 127\\.0\\.0\\.1:${port}$`, 'm'));
    const verbose = await runWeir(['validate', '-v', cfg]);
    expect(verbose.code).to.equal(78);
    expect(verbose.stderr).to.include('Healthcheck failed.').and.include('component_id=collector');
  });

  it('a rejected reload is always reported: the first failure after a success is never folded by the rate limit', async () => {
    const good = `[sources.gen]\ntype = "demo_logs"\ninterval = 0.05\n[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "text"\n`;
    const cfg = write('reload.toml', good);
    const p = startWeir(['--config', cfg]);
    try {
      await until(() => p.stderr().includes('weir started'), 20_000, 'the daemon to start');
      const count = (s: string) => p.stderr().split(s).length - 1;
      writeFileSync(cfg, good.replace('interval = 0.05', 'interval = "x"'));
      p.child.kill('SIGHUP');
      await until(() => count('Reload failed') === 1, 20_000, 'the first rejected reload');
      writeFileSync(cfg, good);
      for (let i = 0; i < 10; i++) p.child.kill('SIGHUP');
      await until(() => count('Configuration reloaded.') >= 1, 20_000, 'a reload to succeed');
      writeFileSync(cfg, '[sources.gen\ntype = "demo_logs"\n');
      p.child.kill('SIGHUP');
      await until(() => count('Reload failed') === 2, 20_000, 'the rejected reload after the successful ones');
      expect(p.stderr()).to.include('invalid TOML');
      const before = p.stdout().length;
      await until(() => p.stdout().length > before, 20_000, 'the running pipeline to keep delivering');
    } finally {
      p.child.kill('SIGINT');
      await p.exited;
    }
  });

  it('a source a reload adds that cannot bind fails alone: the running pipeline goes on', async () => {
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    const base = `[sources.gen]\ntype = "demo_logs"\ninterval = 0.05\n[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "text"\n`;
    const cfg = write('reload-bind.toml', base);
    const p = startWeir(['--config', cfg]);
    try {
      await until(() => p.stderr().includes('weir started'), 20_000, 'the daemon to start');
      writeFileSync(cfg, base.replace('inputs = ["gen"]', 'inputs = ["gen", "in"]') + `[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:${port}"\n`);
      p.child.kill('SIGHUP');
      await until(() => p.stderr().includes('Source failed to start.'), 20_000, 'the added source to fail');
      const before = p.stdout().length;
      await until(() => p.stdout().length > before, 20_000, 'the running pipeline to keep delivering');
      expect(p.stderr()).not.to.include('Shutting down');
    } finally {
      p.child.kill('SIGINT');
      const { code } = await p.exited;
      await new Promise((r) => taken.close(r));
      expect(code).to.equal(0);
    }
  });

  it('every problem at once: an option typo and an unknown input of the same sink, outputs of a failed transform known', async () => {
    const cfg = write(
      'typos.toml',
      `[sources.in]\ntype = "stdin"\n[transforms.split]\ntype = "route"\ninputs = ["in"]\nroute.errors = 5\n` +
        `[sinks.out]\ntype = "console"\ninputs = ["split.error"]\nencodingg.codec = "json"\n`,
    );
    for (const args of [['validate', cfg], ['--config', cfg]]) {
      const r = await runWeir(args);
      expect(r.code).to.equal(78);
      const text = r.stdout + r.stderr;
      expect(text).to.include('sinks.out.encodingg: unknown option; did you mean "encoding"?');
      expect(text).to.include('transforms.split.route.errors');
      expect(text).to.include('sinks.out.inputs[0]: component "split" has no output named "error" (did you mean "split.errors"?)');
    }
  });
});
