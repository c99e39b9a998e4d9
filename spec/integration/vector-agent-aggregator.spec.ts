/**
 * A weir agent relays to a weir aggregator over the `vector` protocol, both daemons with disk
 * buffers: socket(tcp) -> vector sink ==gRPC==> vector source -> http sink -> an id consumer.
 * The aggregator is killed with SIGKILL mid-stream and started again: every line the agent took
 * (every completed socket write) reaches the consumer. Duplicates are possible (pushes the dead
 * aggregator had taken but not answered are sent again) and are counted and reported.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { type IdConsumer, idConsumer } from '../helpers/id-consumer.js';
import { until } from '../helpers/wait.js';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';

const MIN_MAX_SIZE = 268_435_488;

async function connectRetry(port: number, timeoutMs = 30_000): Promise<Socket> {
  const start = Date.now();
  for (;;) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => resolve(s));
        s.once('error', reject);
      });
    } catch (e) {
      if (Date.now() - start > timeoutMs) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Resolves once something listens on the port. */
async function listening(port: number): Promise<void> {
  (await connectRetry(port)).destroy();
}

function agentConfig(dir: string, inPort: number, aggPort: number): string {
  return `data_dir = "${dir}"
[sources.in]
type = "socket"
mode = "tcp"
address = "127.0.0.1:${inPort}"

[sinks.aggregator]
type = "vector"
inputs = ["in"]
address = "127.0.0.1:${aggPort}"
healthcheck.enabled = false
batch.max_events = 500
batch.timeout_secs = 0.1
request.retry_initial_backoff_secs = 1
request.retry_max_duration_secs = 1
request.timeout_secs = 5
buffer.type = "disk"
buffer.max_size = ${MIN_MAX_SIZE}
buffer.when_full = "block"
`;
}

function aggregatorConfig(dir: string, aggPort: number, consumerUrl: string): string {
  return `data_dir = "${dir}"
[sources.agents]
type = "vector"
address = "127.0.0.1:${aggPort}"

[sinks.out]
type = "http"
inputs = ["agents"]
uri = "${consumerUrl}"
encoding.codec = "text"
healthcheck.enabled = false
batch.max_events = 1000
batch.timeout_secs = 0.1
request.retry_initial_backoff_secs = 1
request.retry_max_duration_secs = 1
buffer.type = "disk"
buffer.max_size = ${MIN_MAX_SIZE}
buffer.when_full = "block"
acknowledgements.enabled = true
`;
}

describe('weir agent -> weir aggregator over the vector protocol', function () {
  this.timeout(240_000);
  const running: WeirProcess[] = [];
  const dirs: string[] = [];
  let consumer: IdConsumer | undefined;

  afterEach(async () => {
    for (const p of running.splice(0))
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
    await consumer?.down();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('kill -9 of the aggregator mid-stream loses nothing the agent took; duplicates are counted', async () => {
    const N = 60_000;
    const agentDir = mkdtempSync(join(tmpdir(), 'weir-agent-'));
    const aggDir = mkdtempSync(join(tmpdir(), 'weir-aggregator-'));
    dirs.push(agentDir, aggDir);
    const inPort = await freePort();
    const aggPort = await freePort();
    consumer = idConsumer(await freePort(), N);
    // a slow destination, so the aggregator holds a backlog when it dies
    consumer.delayMs = 20;
    await consumer.up();
    const agentCfg = join(agentDir, 'agent.toml');
    const aggCfg = join(aggDir, 'aggregator.toml');
    writeFileSync(agentCfg, agentConfig(agentDir, inPort, aggPort));
    writeFileSync(aggCfg, aggregatorConfig(aggDir, aggPort, consumer.url));

    const track = (p: WeirProcess) => (running.push(p), p);
    let aggregator = track(startWeir(['--config', aggCfg]));
    await listening(aggPort);
    const agent = track(startWeir(['--config', agentCfg]));
    const sock = await connectRetry(inPort);

    // every write completes: the agent took each line
    const pad = 'payload-abcdefghijklmnopqrstuvwxyz-0123456789';
    const writing = (async () => {
      for (let a = 0; a < N; a += 1000) {
        let chunk = '';
        for (let id = a; id < Math.min(N, a + 1000); id++) chunk += `${id} ${pad}\n`;
        await new Promise<void>((resolve, reject) => sock.write(chunk, (err) => (err ? reject(err) : resolve())));
      }
    })();

    await until(() => consumer!.received >= N / 3, 60_000, 'a third of the lines at the consumer');
    aggregator.child.kill('SIGKILL');
    const { signal } = await aggregator.exited;
    expect(signal).to.equal('SIGKILL');
    const atKill = consumer.received;
    // the agent keeps taking lines into its disk buffer while the aggregator is away
    await new Promise((r) => setTimeout(r, 1500));
    aggregator = track(startWeir(['--config', aggCfg]));
    await writing;
    sock.end();

    await until(() => consumer!.counts.every((c) => c > 0), 120_000, 'every line at the consumer');
    let duplicated = 0;
    for (const c of consumer.counts) if (c > 1) duplicated += c - 1;
    // eslint-disable-next-line no-console
    console.log(`      agent -> aggregator: ${N} lines, ${atKill} delivered before the kill, 0 lost, ${duplicated} duplicates`);
    expect(consumer.unknown).to.equal(0);
    expect(agent.child.exitCode).to.equal(null);
  });
});
