/**
 * A real Prometheus server (Debian's `prometheus` 2.42) for the `prometheus_*` tests: one process
 * per test run on a free loopback port, its own config file and TSDB dir, the remote-write receiver
 * on (`/api/v1/write`) and the lifecycle API on, so each test sets the scrape jobs and remote-write
 * targets it needs with {@link PrometheusServer.configure} (a reload, not a restart). The
 * machine's own Prometheus service, port 9090 and data dir are never touched.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';

export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';

/** Installs the Debian package when missing and running as root; otherwise fails loudly. */
function ensureInstalled(): void {
  if (existsSync(PROMETHEUS) && existsSync(PROMTOOL)) return;
  if (process.getuid?.() !== 0) throw new Error('prometheus is not installed and the tests do not run as root: apt-get install -y prometheus');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'prometheus'], { stdio: 'ignore', env });
  if (!existsSync(PROMETHEUS)) throw new Error('apt-get install prometheus did not provide /usr/bin/prometheus');
}

/** One instant-query result: labels and value. */
export interface QuerySample {
  readonly metric: Record<string, string>;
  readonly value: number;
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Writes the config (YAML text: `global`, `scrape_configs`, `remote_write`) and reloads it. */
  configure(yaml: string): Promise<void>;
  /** An instant query through `/api/v1/query`. */
  query(promql: string): Promise<QuerySample[]>;
  /** Polls `query` until `ok` holds for its result (the limit is generous: scrapes run on Prometheus's own clock). */
  waitFor(promql: string, ok: (r: QuerySample[]) => boolean, limitMs?: number): Promise<QuerySample[]>;
  log(): string;
}

async function startPrometheus(): Promise<PrometheusServer> {
  ensureInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'weir-prometheus-'));
  const port = await freePort();
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, 'global:\n  scrape_interval: 1s\n');
  let logText = '';
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--web.enable-lifecycle',
      // a series of a stopped test should not answer the next test's query
      '--query.lookback-delta=30s',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (b: Buffer) => (logText += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (logText = (logText + b.toString()).slice(-200_000)));
  const killNow = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killNow);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = await fetch(`${url}/-/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      killNow();
      throw new Error(`prometheus did not become ready (exit ${child.exitCode}): ${logText}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const query = async (promql: string): Promise<QuerySample[]> => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
    return body.data!.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  return {
    url,
    async configure(yaml) {
      writeFileSync(configFile, yaml);
      const res = await fetch(`${url}/-/reload`, { method: 'POST' });
      if (res.status !== 200) throw new Error(`prometheus reload failed (${res.status}): ${await res.text()}`);
    },
    query,
    async waitFor(promql, ok, limitMs = 60_000) {
      const until = Date.now() + limitMs;
      let last: QuerySample[] = [];
      for (;;) {
        last = await query(promql);
        if (ok(last)) return last;
        if (Date.now() > until) throw new Error(`prometheus: ${promql} did not reach the expected result; last: ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    log: () => logText,
  };
}

let shared: Promise<PrometheusServer> | undefined;

/** The process-wide instance, started on first use; tests configure their own jobs and use their own metric names. */
export function sharedPrometheus(): Promise<PrometheusServer> {
  if (!shared) {
    shared = startPrometheus();
    shared.catch(() => (shared = undefined));
  }
  return shared;
}

/** `promtool check metrics` on an exposition: its output (problems found; lint warnings included) and exit code. */
export function promtoolCheckMetrics(exposition: string): { code: number; output: string } {
  ensureInstalled();
  try {
    const out = execFileSync(PROMTOOL, ['check', 'metrics'], { input: exposition, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    return { code: 0, output: out };
  } catch (err) {
    const e = err as { status: number; stdout?: string; stderr?: string };
    return { code: e.status, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
