/**
 * A real NATS server (Debian's `nats-server`, JetStream included) for the `nats` source and sink
 * tests. Each instance runs from its own temp dir (config and JetStream store) on free loopback
 * ports, so the machine's own nats-server service, its port 4222 and its dirs are never touched.
 * {@link sharedNatsServer} starts one instance per authentication mode per process (the server
 * refuses a token beside a users list) and stops it at exit.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from 'nats';
import { type TestCerts, makeTestCerts } from '../helpers/certs.js';
import { freePort } from '../helpers/free-port.js';

const NATS_SERVER = '/usr/sbin/nats-server';

/** Installs the Debian package when missing and running as root; otherwise fails loudly. */
function ensureInstalled(): void {
  if (existsSync(NATS_SERVER)) return;
  if (process.getuid?.() !== 0) throw new Error('nats-server is not installed and the tests do not run as root: apt-get install -y nats-server');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'nats-server'], { stdio: 'ignore', env });
  if (!existsSync(NATS_SERVER)) throw new Error('apt-get install nats-server did not provide /usr/sbin/nats-server');
}

/** How clients authenticate: users (password, nkey, anonymous), a token, or mutual TLS (a client certificate the test CA signed). */
export type NatsAuthMode = 'users' | 'token' | 'tls';

/** The users of the `users` mode: a password user, an nkey user, and anonymous clients (mapped to `anon`, full permissions). */
export const NATS_USER = { user: 'weir', password: 'weir-secret' };
/** The token of the `token` mode. */
export const NATS_TOKEN = 'weir-token-s3cr3t';

/** A running server and the handles a test needs. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>` of the monitoring endpoints (`/connz`, `/healthz`). */
  readonly monitorUrl: string;
  /** The CA, server and client certificates (`tls` mode). */
  readonly certs: TestCerts | undefined;
  /** The nkey user's seed and public key (`users` mode). */
  readonly nkey: { readonly seed: string; readonly publicKey: string };
  /** Kills the process at once (SIGKILL); the port and store dir stay reserved for {@link start}. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and store (after {@link kill}); resolves once it is healthy. */
  start(): Promise<void>;
  /** The server's log so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/** Starts a fresh nats-server with JetStream and waits until `/healthz` answers 200. */
export async function startNatsServer(mode: NatsAuthMode = 'users'): Promise<NatsServer> {
  ensureInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'weir-nats-'));
  const [port, monitorPort] = [await freePort(), await freePort()];
  const user = nkeys.createUser();
  const nkey = { seed: new TextDecoder().decode(user.getSeed()), publicKey: user.getPublicKey() };
  const certs = mode === 'tls' ? makeTestCerts() : undefined;
  const authorization =
    mode === 'token'
      ? [`authorization { token: "${NATS_TOKEN}" }`]
      : certs !== undefined
        ? [`tls { cert_file: "${certs.serverCrt}", key_file: "${certs.serverKey}", ca_file: "${certs.caCrt}", verify: true }`]
        : [
          'authorization {',
          '  users: [',
          `    { user: "${NATS_USER.user}", password: "${NATS_USER.password}" }`,
          `    { nkey: "${nkey.publicKey}" }`,
          '    { user: "anon", password: "anon-only-by-no-auth-user" }',
          '  ]',
          '}',
          'no_auth_user: "anon"',
        ];
  writeFileSync(
    join(dir, 'nats.conf'),
    [`listen: "127.0.0.1:${port}"`, `http: "127.0.0.1:${monitorPort}"`, `jetstream { store_dir: "${join(dir, 'store')}" }`, ...authorization, ''].join('\n'),
  );
  let logText = '';
  let child: ChildProcess | undefined;
  const isRunning = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const killNow = () => {
    // at process exit nothing can be awaited: SIGKILL, then the dir
    if (isRunning()) child!.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    certs?.remove();
  };
  atExit.add(killNow);
  const signal = async (sig: NodeJS.Signals) => {
    if (!isRunning()) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child!.kill(sig);
    await exited;
  };
  const start = async () => {
    const c = spawn(NATS_SERVER, ['-c', join(dir, 'nats.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout?.on('data', (b: Buffer) => (logText += b.toString()));
    c.stderr?.on('data', (b: Buffer) => (logText += b.toString()));
    child = c;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${monitorPort}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return;
      if (c.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server did not answer /healthz (exit ${c.exitCode}): ${logText}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const stop = async () => {
    atExit.delete(killNow);
    await signal('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
    certs?.remove();
  };
  try {
    await start();
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `nats://127.0.0.1:${port}`, monitorUrl: `http://127.0.0.1:${monitorPort}`, certs, nkey, kill: () => signal('SIGKILL'), start, log: () => logText, stop };
}

const shared = new Map<NatsAuthMode, Promise<NatsServer>>();

/**
 * The process-wide instance of a mode, started on first use. Tests use their own subjects and
 * streams instead of stopping it; a test that kills it starts it again before it ends.
 */
export function sharedNatsServer(mode: NatsAuthMode = 'users'): Promise<NatsServer> {
  let p = shared.get(mode);
  if (!p) {
    p = startNatsServer(mode);
    // a failed start is not cached: the next caller tries again and sees its own error
    p.catch(() => shared.delete(mode));
    shared.set(mode, p);
  }
  return p;
}

const atExit = new Set<() => void>();
process.once('exit', () => {
  for (const f of atExit) f();
});
