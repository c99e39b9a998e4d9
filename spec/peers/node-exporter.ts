/**
 * A real Prometheus node exporter (Debian's `prometheus-node-exporter`), the reference the
 * `host_metrics` source's values are compared with. One instance per test process on a free
 * loopback port ({@link sharedNodeExporter}), never the machine's own service on :9100; it is
 * killed at exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from '../helpers/free-port.js';

const NODE_EXPORTER = '/usr/bin/prometheus-node-exporter';

/** A running exporter. */
export interface NodeExporter {
  /** `http://127.0.0.1:<port>/metrics`. */
  readonly url: string;
  /** One scrape of the exposition, as samples. */
  scrape(): Promise<Sample[]>;
}

/** One sample of the text exposition format. */
export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Samples of a text exposition (no escapes beyond `\"` and `\\` in label values, as node-exporter writes them). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    if (m[2]) for (const l of m[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

async function start(): Promise<NodeExporter> {
  if (!existsSync(NODE_EXPORTER)) throw new Error(`${NODE_EXPORTER} is missing: apt-get install prometheus-node-exporter (node scripts/test-peers.mjs as root does)`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/metrics`;
  let log = '';
  // netdev over netlink reports nothing in some containers; /proc/net/dev is what host_metrics reads too
  const args = [`--web.listen-address=127.0.0.1:${port}`, '--no-collector.netdev.netlink'];
  const child: ChildProcess = spawn(NODE_EXPORTER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (b: Buffer) => (log += b.toString()));
  process.once('exit', () => child.kill('SIGKILL'));
  // the process holds no test alive: mocha's --exit or the end of the run ends it
  child.unref();
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`node-exporter did not answer ${url} (exit ${child.exitCode}): ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    scrape: async () => parseExposition(await (await fetch(url)).text()),
  };
}

let shared: Promise<NodeExporter> | undefined;

/** The process-wide exporter, started on first use; a failed start is tried again by the next caller. */
export function sharedNodeExporter(): Promise<NodeExporter> {
  if (!shared) {
    shared = start();
    shared.catch(() => (shared = undefined));
  }
  return shared;
}
