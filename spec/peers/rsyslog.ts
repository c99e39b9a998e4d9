/**
 * A real rsyslogd forwarding to a syslog listener: Debian's package unpacked (not installed) by
 * scripts/test-peers.mjs into `tmp/peers/rsyslog` (or `$WEIR_PEERS_DIR/rsyslog`). It reads
 * messages from a unix datagram socket of its own (imuxsock, where `logger -u` writes) and
 * forwards them with omfwd over TCP in RFC 5424 (`RSYSLOG_SyslogProtocol23Format`), octet-counted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/wait.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ROOT = join(process.env.WEIR_PEERS_DIR || join(repoRoot, 'tmp', 'peers'), 'rsyslog');
const RSYSLOGD = join(ROOT, 'usr/sbin/rsyslogd');

/** The module folder, under Debian's multiarch library folder (`usr/lib/<triplet>/rsyslog`). */
function modulesDir(): string {
  const lib = join(ROOT, 'usr/lib');
  const triplet = readdirSync(lib).find((d) => existsSync(join(lib, d, 'rsyslog', 'imuxsock.so')));
  if (triplet === undefined) throw new Error(`no rsyslog modules under ${lib}`);
  return join(lib, triplet, 'rsyslog');
}

/** One running rsyslogd. */
export interface Rsyslog {
  /** The unix datagram socket rsyslogd reads (`logger -u PATH`). */
  readonly inputSocket: string;
  /** What rsyslogd wrote on stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts rsyslogd forwarding to 127.0.0.1:`port`; resolves once its input socket exists. */
export async function startRsyslog(port: number): Promise<Rsyslog> {
  if (!existsSync(RSYSLOGD)) throw new Error(`rsyslogd is missing at ${RSYSLOGD}: run node scripts/test-peers.mjs (it unpacks Debian's rsyslog package there)`);
  const dir = mkdtempSync(join(tmpdir(), 'weir-rsyslog-'));
  const inputSocket = join(dir, 'in.sock');
  writeFileSync(
    join(dir, 'rsyslog.conf'),
    [
      `global(workDirectory="${dir}")`,
      'module(load="imuxsock" SysSock.Use="off")',
      `input(type="imuxsock" Socket="${inputSocket}")`,
      `action(type="omfwd" target="127.0.0.1" port="${port}" protocol="tcp" template="RSYSLOG_SyslogProtocol23Format" TCP_Framing="octet-counted")`,
      '',
    ].join('\n'),
  );
  let output = '';
  const child: ChildProcess = spawn(RSYSLOGD, ['-n', '-f', join(dir, 'rsyslog.conf'), '-M', modulesDir(), '-i', join(dir, 'rsyslog.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  let exited = false;
  const gone = new Promise<void>((res) => child.once('exit', () => ((exited = true), res())));
  await until(() => existsSync(inputSocket) || exited, 10_000, 'rsyslogd input socket');
  if (exited) throw new Error(`rsyslogd exited at start: ${output}`);
  return {
    inputSocket,
    output: () => output,
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
