/** `type = "syslog"` through the daemon: logger over TCP and UDP in, JSON lines out, a clean stop. */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

const run = promisify(execFile);

describe('syslog -> file through the daemon', function () {
  this.timeout(60_000);
  const tmp = mkdtempSync(join(tmpdir(), 'weir-syslog-daemon-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('logger messages over tcp and udp arrive parsed in the file', async () => {
    const tcpPort = await freePort();
    const udpPort = await freePort();
    const out = join(tmp, 'out.log');
    const cfg = join(tmp, 'syslog.toml');
    writeFileSync(
      cfg,
      [
        `data_dir = "${tmp}"`,
        '[sources.tcp]\ntype = "syslog"\nmode = "tcp"',
        `address = "127.0.0.1:${tcpPort}"`,
        '[sources.udp]\ntype = "syslog"\nmode = "udp"',
        `address = "127.0.0.1:${udpPort}"`,
        '[sinks.file]\ntype = "file"\ninputs = ["tcp", "udp"]',
        `path = "${out}"`,
        'encoding.codec = "json"',
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg]);
    await until(() => p.stderr().includes('Listening.') && p.stderr().split('Listening.').length > 2, 20_000, `both listeners (${p.stderr()})`);
    await run('logger', ['--server', '127.0.0.1', '--port', String(tcpPort), '--tcp', '--rfc5424', '--octet-count', '--msgid', 'D1', '-t', 'daemon-tcp', 'hello over tcp']);
    await run('logger', ['--server', '127.0.0.1', '--port', String(udpPort), '--udp', '--rfc3164', '-t', 'daemon-udp', 'hello over udp']);
    const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);
    await until(() => lines().length === 2, 20_000, 'two lines in the file');
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    const byApp = Object.fromEntries(lines().map((l) => [l.appname as string, l]));
    expect(byApp['daemon-tcp']).to.deep.include({ message: 'hello over tcp', msgid: 'D1', version: 1, source_ip: '127.0.0.1', source_type: 'syslog' });
    expect(byApp['daemon-udp']).to.deep.include({ message: 'hello over udp', source_ip: '127.0.0.1', source_type: 'syslog' });
  });
});
