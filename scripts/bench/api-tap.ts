/**
 * socket (tcp) -> blackhole, without and with the management API serving a tap subscribed to every
 * output (`*`, limit 100, interval 500 ms, a client reading over the legacy protocol):
 * `npx tsx scripts/bench/api-tap.ts [MiB per round] [rounds] [line bytes]`. Rounds alternate the
 * two cases after a warm-up; prints both medians and their ratio from this one run.
 */
import { connect } from 'node:net';
import { createServer } from 'node:net';
import { asyncScheduler } from 'rxjs';
import WebSocket from 'ws';
import { ApiServer } from '../../lib/api/server.js';
import { configFromObject } from '../../lib/config/load.js';
import { LogRoot } from '../../lib/log.js';
import { Topology } from '../../lib/topology/topology.js';
import { catalog } from '../../connectors/index.js';

const mib = Number(process.argv[2] ?? 64);
const rounds = Number(process.argv[3] ?? 3);
const lineBytes = Number(process.argv[4] ?? 200);
const total = Math.floor((mib * 1024 * 1024) / lineBytes);

const TAP_QUERY = `subscription($outputsPatterns: [String!]!, $limit: Int!, $interval: Int!) {
  outputEventsByComponentIdPatterns(outputsPatterns: $outputsPatterns, limit: $limit, interval: $interval) {
    __typename ... on Log { componentId message string(encoding: JSON) } ... on EventNotification { message }
  }
}`;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Sends `total` lines to the socket source as fast as TCP takes them. */
function send(port: number): Promise<void> {
  const perBlock = Math.floor((1 << 20) / lineBytes);
  const block = Buffer.from(('x'.repeat(lineBytes - 1) + '\n').repeat(perBlock));
  return new Promise((resolve, reject) => {
    let sent = 0;
    const c = connect(port, '127.0.0.1', () => {
      const pump = () => {
        while (sent < total) {
          const n = Math.min(perBlock, total - sent);
          const ok = c.write(n === perBlock ? block : block.subarray(0, n * lineBytes));
          sent += n;
          if (!ok) return void c.once('drain', pump);
        }
        c.end(resolve);
      };
      pump();
    });
    c.on('error', reject);
  });
}

/** A tap client that reads everything it is sent; resolves once the server confirmed the match. */
async function tapClient(port: number): Promise<{ ws: WebSocket; events: () => number }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`);
  let events = 0;
  let matched!: () => void;
  const ready = new Promise<void>((r) => (matched = r));
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as { type: string; payload?: { data?: { outputEventsByComponentIdPatterns: { __typename: string }[] } } };
    if (m.type === 'connection_ack') ws.send(JSON.stringify({ id: '1', type: 'start', payload: { query: TAP_QUERY, variables: { outputsPatterns: ['*'], limit: 100, interval: 500 } } }));
    const items = m.payload?.data?.outputEventsByComponentIdPatterns ?? [];
    for (const i of items) {
      if (i.__typename === 'Log') events++;
      else matched();
    }
  });
  await new Promise<void>((r) => ws.once('open', () => r()));
  ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  await ready;
  return { ws, events: () => events };
}

/** One round: a fresh topology (and API with a tap when asked); events per second end to end. */
async function round(withTap: boolean): Promise<{ eps: number; tapped: number }> {
  const port = await freePort();
  const topo = new Topology({ log: new LogRoot('error', { write() {} }) });
  const cfg = configFromObject(
    {
      sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
      sinks: { hole: { type: 'blackhole', inputs: ['in'], print_interval_secs: 0 } },
    },
    catalog,
  );
  let api: ApiServer | undefined;
  let tap: Awaited<ReturnType<typeof tapClient>> | undefined;
  if (withTap) api = await ApiServer.start({ address: '127.0.0.1:0', playground: false, graphql: true }, { topology: topo, scheduler: asyncScheduler, startedAt: Date.now(), version: 'bench', hostname: 'bench' });
  await topo.start(cfg);
  api?.markRunning();
  if (api) tap = await tapClient(api.port);
  const start = process.hrtime.bigint();
  await send(port);
  while (topo.registry.sum('component_received_events_total', { component_id: 'hole' }) < total) await new Promise((r) => setTimeout(r, 2));
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  tap?.ws.terminate();
  await api?.close();
  await topo.stop(5000);
  return { eps: total / secs, tapped: tap?.events() ?? 0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await round(false); // warm-up
await round(true);
const plain: number[] = [];
const tapped: number[] = [];
let sampled = 0;
for (let i = 0; i < rounds; i++) {
  plain.push((await round(false)).eps);
  const t = await round(true);
  tapped.push(t.eps);
  sampled += t.tapped;
}
const a = median(plain);
const b = median(tapped);
const fmt = (eps: number) => `${(eps / 1e6).toFixed(3)} M events/s (${((eps * lineBytes) / 1024 / 1024).toFixed(1)} MiB/s)`;
console.log(`socket -> blackhole, ${mib} MiB of ${lineBytes}-byte lines per round, median of ${rounds} rounds each`);
console.log(`  without the API:              ${fmt(a)}`);
console.log(`  API enabled, tap on '*':      ${fmt(b)}  (${sampled} sampled events received by the tap client)`);
console.log(`  with tap / without: ${((b / a) * 100).toFixed(1)}%`);
process.exit(0);
