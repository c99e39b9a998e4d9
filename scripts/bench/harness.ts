/**
 * What every benchmark script shares: starting a sibling script in its own process (compiled or
 * through tsx, as this one runs), reading its READY line, and waiting for a pipeline's socket.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ts = import.meta.url.endsWith('.ts');

/** The node arguments that run a sibling benchmark script (`tcp-send`, a peer...). */
export const script = (name: string): string[] => (ts ? ['--import', 'tsx', join(here, `${name}.ts`)] : [join(here, `${name}.js`)]);

/** The rest of the first line of a child's stdout that starts with `prefix`. */
export function firstLine(child: ReturnType<typeof spawn>, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (l) => {
      if (l.startsWith(prefix)) {
        rl.close();
        resolve(l.slice(prefix.length).trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`${prefix} never came (exit ${code})`)));
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Resolves once something accepts connections on the port (the source listens asynchronously). */
export async function listening(port: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves once `done()` holds, checked every few milliseconds (a metric reaching the count sent). */
export function whenDone(done: () => boolean, everyMs = 5): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (done()) {
        clearInterval(timer);
        resolve();
      }
    }, everyMs);
  });
}

/** This process's peak resident set, MiB. */
export const peakRssMiB = (): number => process.resourceUsage().maxRSS / 1024;

/** A running `socket(tcp) -> <sinks>` topology, listening for the sender. */
export interface SocketPipeline {
  readonly topo: import('../../lib/topology/topology.js').Topology;
  readonly port: number;
  readonly dir: string;
  /** A metric of one component, summed over its tag sets. */
  sum(componentId: string, name: string, tags?: Record<string, string>): number;
  /** Tells the sender to go and resolves once `sinkId` settled `lines` events (sent or discarded). */
  run(sender: ReturnType<typeof spawn>, sinkId: string, lines: number): Promise<{ seconds: number; rssMiB: number }>;
  stop(): Promise<void>;
}

/** Starts weir's side of a socket benchmark: the sinks given (their `inputs` default to the source). */
export async function socketPipeline(name: string, sinks: Record<string, Record<string, unknown>>, threads = 1): Promise<SocketPipeline> {
  // loaded here, not at the top: a peer process that imports this module stays light
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { catalog, pipelineWorkerEntry } = await import('../../connectors/index.js');
  const { configFromObject } = await import('../../lib/config/load.js');
  const { LogRoot } = await import('../../lib/log.js');
  const { Topology } = await import('../../lib/topology/topology.js');
  const { sizeYoungGeneration } = await import('../../bin/startup/young-generation.js');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `weir-bench-${name}-`));
  const wired = Object.fromEntries(Object.entries(sinks).map(([id, s]) => [id, { inputs: ['in'], ...s }]));
  const config = configFromObject({ data_dir: dir, sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } }, sinks: wired }, catalog);
  const topo = new Topology({ log: new LogRoot('warn'), threads, workerEntry: pipelineWorkerEntry });
  await topo.start(config);
  // as bin/cli/run.ts: the main thread's young generation follows what runs in workers
  sizeYoungGeneration(topo.threadedSegments);
  await listening(port);
  const sum = (id: string, metric: string, tags: Record<string, string> = {}) => topo.registry.sum(metric, { component_id: id, ...tags });
  return {
    topo,
    port,
    dir,
    sum,
    async run(sender, sinkId, lines) {
      const t0 = performance.now();
      sender.stdin!.write(`go ${port}\n`);
      await whenDone(() => sum(sinkId, 'component_sent_events_total') + sum(sinkId, 'component_discarded_events_total') >= lines);
      return { seconds: (performance.now() - t0) / 1000, rssMiB: Math.round(peakRssMiB()) };
    },
    async stop() {
      await topo.stop(5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** User + system CPU seconds another process (all its threads, or one: `task`) has used so far (Linux: /proc, 1/100 s ticks). */
export function processCpuSecs(pid: number, task?: number): number {
  const stat = readFileSync(task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`, 'utf8');
  // the fields after the parenthesised command name: utime and stime are the 12th and 13th
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Another process's peak RSS so far (VmHWM), MiB. */
export const processPeakRssMiB = (pid: number): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Another process's RSS now (VmRSS), MiB. */
export const processRssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Sixteen distinct NDJSON bodies of `perRequest` lines of about 200 bytes, so no layer can cache one answer. */
export function ndjsonBodies(perRequest: number): Buffer[] {
  const out: Buffer[] = [];
  for (let v = 0; v < 16; v++) {
    const lines: string[] = [];
    for (let i = 0; i < perRequest; i++)
      lines.push(JSON.stringify({ message: `request ${v} line ${i} `.padEnd(120, 'x'), level: 'info', status: 200, duration: 0.25, service: 'bench' }));
    out.push(Buffer.from(`${lines.join('\n')}\n`));
  }
  return out;
}

/** Where and how {@link postAll} sends its bodies. */
export interface PostTarget {
  readonly port: number;
  readonly path: string;
  readonly contentType: string;
}

/**
 * POSTs `requests` bodies (taken in turn from `payloads`) with `concurrency` requests in flight on
 * keep-alive connections; a 503 is sent again (a source holding or refusing under backpressure),
 * any other status than 200 fails the run. Returns the seconds taken, the bytes sent once each and
 * how many sends were repeated.
 */
export async function postAll(target: PostTarget, payloads: readonly Buffer[], requests: number, concurrency: number): Promise<{ secs: number; bytes: number; retried: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const post = (body: Buffer) =>
    new Promise<number>((res, rej) => {
      const headers = { 'content-type': target.contentType, 'content-length': body.length };
      const r = request({ host: '127.0.0.1', port: target.port, path: target.path, method: 'POST', agent, headers }, (resp) => {
        resp.resume();
        resp.on('end', () => res(resp.statusCode ?? 0));
      });
      r.on('error', rej);
      r.end(body);
    });
  let next = 0;
  let bytes = 0;
  let retried = 0;
  const start = process.hrtime.bigint();
  const worker = async () => {
    while (next < requests) {
      const body = payloads[next++ % payloads.length]!;
      for (;;) {
        const status = await post(body);
        if (status === 200) break;
        if (status !== 503) throw new Error(`unexpected status ${status}`);
        retried++;
      }
      bytes += body.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { secs: Number(process.hrtime.bigint() - start) / 1e9, bytes, retried };
}

/** Calls `onLine` for each complete line of a text stream's chunks; keeps the partial tail. */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let rest = '';
  return (chunk) => {
    const text = rest + chunk;
    let start = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) >= 0) {
      onLine(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
  };
}

/**
 * Starts a consumer script (http-consumer, tcp-consumer) in its own process; resolves with its port.
 * `onLine` sees its later stdout lines.
 */
export async function startConsumer(name: string, args: string[] = [], onLine?: (line: string) => void): Promise<number> {
  const child = spawn(process.execPath, [...script(name), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill());
  // a signal skips 'exit' handlers: turn it into an exit so the consumer never outlives the case
  process.once('SIGTERM', () => process.exit(0));
  return new Promise((resolve) => {
    let port = 0;
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = port ? null : /"port":(\d+)/.exec(l);
      if (m) resolve((port = Number(m[1])));
      else onLine?.(l);
    });
  });
}
