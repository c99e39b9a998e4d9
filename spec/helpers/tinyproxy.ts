/**
 * A real forward proxy for proxy tests: Debian's tinyproxy on a loopback port with a temp config.
 * Installed with apt-get when missing and running as root; otherwise the test fails loudly.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './wait.js';

const BINARY_PATHS = ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy'];

function findBinary(): string | undefined {
  return BINARY_PATHS.find((p) => existsSync(p));
}

function ensureInstalled(): string {
  let bin = findBinary();
  if (bin) return bin;
  if (process.getuid?.() !== 0) throw new Error('tinyproxy is not installed and the tests do not run as root: install it with `apt-get install -y tinyproxy`');
  try {
    execFileSync('apt-get', ['install', '-y', 'tinyproxy'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', 'tinyproxy'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  bin = findBinary();
  if (!bin) throw new Error('apt-get install tinyproxy did not provide a tinyproxy binary');
  return bin;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface TestProxy {
  readonly url: string;
  /** Lines of tinyproxy's log that record a request or a CONNECT through it. */
  connections(): string[];
  /** How many requests for `host` ("127.0.0.1:8080") the log records: CONNECT tunnels to it and absolute-form requests for it. */
  requestsTo(host: string): number;
  /**
   * Waits until the log records at least `n` requests for `host`. tinyproxy writes a line some time
   * after it served the request, so a count read right after a proxied call returned can be short.
   */
  waitForRequestsTo(host: string, n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts tinyproxy in the foreground on 127.0.0.1 and waits until it accepts connections. */
export async function startTinyproxy(): Promise<TestProxy> {
  const bin = ensureInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'weir-tinyproxy-'));
  const port = await freePort();
  const log = join(dir, 'tinyproxy.log');
  // no ConnectPort line: CONNECT to any port is allowed (undici tunnels http targets too)
  writeFileSync(
    join(dir, 'tinyproxy.conf'),
    [`Port ${port}`, 'Listen 127.0.0.1', 'Timeout 30', `LogFile "${log}"`, 'LogLevel Connect', 'MaxClients 50', 'Allow 127.0.0.1', 'DisableViaHeader Yes', ''].join('\n'),
  );
  const child: ChildProcess = spawn(bin, ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + 5000;
  for (;;) {
    if (await canConnect(port)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`tinyproxy did not start on port ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const connections = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => /CONNECT|Request \(file descriptor/.test(l)) : []);
  const requestsTo = (host: string): number => connections().filter((l) => requestTarget(l) === host).length;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    requestsTo,
    waitForRequestsTo: (host, n, timeoutMs = 10_000) => until(() => requestsTo(host) >= n, timeoutMs, `${n} request(s) for ${host} in the tinyproxy log`),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `host:port` a logged request line asks for (`Request (file descriptor 5): CONNECT h:p HTTP/1.1` or `GET http://h:p/x HTTP/1.1`). */
function requestTarget(line: string): string | undefined {
  const m = /Request \(file descriptor \d+\): (\S+) (\S+)/.exec(line);
  if (!m) return undefined;
  if (m[1] === 'CONNECT') return m[2];
  try {
    return new URL(m[2]!).host;
  } catch {
    return undefined;
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
