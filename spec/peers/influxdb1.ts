/**
 * A real InfluxDB 1.x (Debian's `influxd`) for `tsdb_metrics` generation-1 tests and
 * benchmarks. Each instance runs with its own temp config, data, meta and WAL dirs on free
 * loopback ports, so the machine's own influxdb service, its ports (8086, 8088) and its dirs are
 * never touched. {@link sharedInfluxdb1} starts one instance per mode per process and stops it at
 * exit, so a test run pays the start-up once.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const INFLUXD = '/usr/bin/influxd';

/** Installs the Debian packages when missing and running as root; otherwise fails loudly. */
function ensureInstalled(): void {
  if (existsSync(INFLUXD)) return;
  if (process.getuid?.() !== 0) throw new Error('influxd is not installed and the tests do not run as root: apt-get install -y influxdb influxdb-client');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', 'influxdb', 'influxdb-client'], { stdio: 'ignore', env });
  } catch {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'influxdb', 'influxdb-client'], { stdio: 'ignore', env });
  }
  if (!existsSync(INFLUXD)) throw new Error('apt-get install influxdb did not provide /usr/bin/influxd');
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

export interface Influxdb1Options {
  /** `auth-enabled = true`, with an admin user created at start. */
  auth?: boolean;
}

/** One InfluxQL statement's result as `/query` returns it. */
export interface QueryResult {
  statement_id: number;
  series?: { name: string; tags?: Record<string, string>; columns: string[]; values: unknown[][] }[];
  error?: string;
}

export interface Influxdb1 {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The admin credentials when started with `auth`. */
  readonly credentials: { username: string; password: string } | undefined;
  /** Runs InfluxQL through `POST /query` (with the admin credentials under auth); throws on an HTTP or statement error. */
  query(q: string, options?: { db?: string; epoch?: 'ns' | 'u' | 'ms' | 's' }): Promise<QueryResult[]>;
  /**
   * Rows of `SELECT * FROM "<measurement>"` as objects keyed by column; `time` is epoch ns as a
   * bigint (read from RFC 3339 text: JSON numbers would round nanoseconds).
   */
  select(db: string, measurement: string): Promise<Record<string, unknown>[]>;
  /** `CREATE DATABASE` (idempotent in InfluxDB). */
  createDatabase(name: string): Promise<void>;
  /** The server's log so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

const ADMIN = { username: 'admin', password: 'weir-secret' };

/** Starts a fresh `influxd` and waits until `GET /ping` answers 204. */
export async function startInfluxdb1(options: Influxdb1Options = {}): Promise<Influxdb1> {
  ensureInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'weir-influxdb1-'));
  const [httpPort, rpcPort] = [await freePort(), await freePort()];
  const config = [
    'reporting-enabled = false',
    `bind-address = "127.0.0.1:${rpcPort}"`,
    '[meta]',
    `  dir = "${join(dir, 'meta')}"`,
    '[data]',
    `  dir = "${join(dir, 'data')}"`,
    `  wal-dir = "${join(dir, 'wal')}"`,
    '  query-log-enabled = false',
    '[monitor]',
    '  store-enabled = false',
    '[http]',
    `  bind-address = "127.0.0.1:${httpPort}"`,
    '  log-enabled = false',
    `  auth-enabled = ${options.auth ? 'true' : 'false'}`,
    '[logging]',
    '  level = "warn"',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'influxdb.conf'), config);
  let logText = '';
  const child: ChildProcess = spawn(INFLUXD, ['run', '-config', join(dir, 'influxdb.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (logText += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (logText += c.toString()));
  const url = `http://127.0.0.1:${httpPort}`;

  const killNow = () => {
    // at process exit nothing can be awaited: SIGKILL, then the dir (files unlinked under a dying process are fine)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  atExit.add(killNow);
  const stop = async () => {
    atExit.delete(killNow);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    const status = await fetch(`${url}/ping`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 204) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`influxd did not answer /ping on ${url} (exit ${child.exitCode}): ${logText}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }

  const credentials = options.auth ? ADMIN : undefined;
  const query: Influxdb1['query'] = async (q, opts = {}) => {
    const form = new URLSearchParams({ q });
    if (opts.db) form.set('db', opts.db);
    if (opts.epoch) form.set('epoch', opts.epoch);
    // influxd reads u/p from the URL query only, never from a form body: send Basic auth instead
    const headers: Record<string, string> = credentials ? { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` } : {};
    const res = await fetch(`${url}/query`, { method: 'POST', body: form, headers });
    const text = await res.text();
    if (!res.ok) throw new Error(`influxd /query ${res.status}: ${text}`);
    const results = (JSON.parse(text) as { results: QueryResult[] }).results;
    const failed = results.find((r) => r.error);
    if (failed) throw new Error(`influxd: ${failed.error} (${q})`);
    return results;
  };
  if (options.auth) {
    // with auth on and no user yet, influxd allows exactly this statement without credentials
    const form = new URLSearchParams({ q: `CREATE USER ${ADMIN.username} WITH PASSWORD '${ADMIN.password}' WITH ALL PRIVILEGES` });
    const res = await fetch(`${url}/query`, { method: 'POST', body: form });
    if (!res.ok) {
      await stop();
      throw new Error(`influxd: creating the admin user failed: ${res.status} ${await res.text()}`);
    }
  }
  return {
    url,
    credentials,
    query,
    async select(db, measurement) {
      const [result] = await query(`SELECT * FROM "${measurement.replace(/"/g, '\\"')}"`, { db });
      const series = result?.series?.[0];
      if (!series) return [];
      return series.values.map((row) => Object.fromEntries(series.columns.map((c, i) => [c, c === 'time' ? rfc3339ToNanos(String(row[i])) : row[i]])));
    },
    async createDatabase(name) {
      await query(`CREATE DATABASE "${name.replace(/"/g, '\\"')}"`);
    },
    log: () => logText,
    stop,
  };
}

/** `2023-11-14T22:13:20.123456789Z` (influxd's RFC3339Nano) -> epoch ns. */
function rfc3339ToNanos(text: string): bigint {
  const m = /^(.*?)(?:\.(\d{1,9}))?Z$/.exec(text);
  if (!m) throw new Error(`influxd returned an unexpected time: ${text}`);
  const secs = BigInt(Date.parse(`${m[1]}Z`)) / 1000n;
  return secs * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

const shared = new Map<string, Promise<Influxdb1>>();
const running = new Set<Influxdb1>();

/**
 * The process-wide instance for a mode, started on first use. A test creates its own database
 * (a unique name) instead of stopping the server; the instances stop when the process exits.
 */
export function sharedInfluxdb1(options: Influxdb1Options = {}): Promise<Influxdb1> {
  const key = options.auth ? 'auth' : 'open';
  let p = shared.get(key);
  if (!p) {
    p = startInfluxdb1(options).then((db) => {
      running.add(db);
      return db;
    });
    // a failed start is not cached: the next caller tries again and sees its own error
    p.catch(() => shared.delete(key));
    shared.set(key, p);
  }
  return p;
}

/** Stops the shared instances (also done at process exit). */
export async function stopSharedInfluxdb1(): Promise<void> {
  const all = [...running];
  running.clear();
  shared.clear();
  await Promise.all(all.map((db) => db.stop()));
}

/** Synchronous clean-ups of every instance not stopped yet. */
const atExit = new Set<() => void>();
process.once('exit', () => {
  for (const kill of atExit) kill();
});
