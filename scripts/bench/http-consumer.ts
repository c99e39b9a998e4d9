/**
 * Minimal HTTP consumer for the http-sink benchmarks: accepts POSTed NDJSON (or JSON arrays),
 * counts events, answers 200. Run alone it prints `{"port":N}` on stdout; GET /stats returns
 * the counters. Also importable (`startConsumer`) for in-process use. A request whose path has
 * `?delay_ms=N` is answered N ms after its body arrived, so that its events wait in the sender's
 * flight; GET /stats/peak returns the most events waiting for an answer at once since the last call.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ConsumerStats {
  events: number;
  requests: number;
  bytes: number;
  /** performance.timeOrigin-based ms of the first and last request. */
  firstAt: number;
  lastAt: number;
}

/** Counts events in a body: lines for NDJSON, elements for a JSON array. */
function countEvents(body: Buffer, contentType: string | undefined): number {
  if (body.length === 0) return 0;
  if (contentType?.startsWith('application/json')) return (JSON.parse(body.toString('utf8')) as unknown[]).length;
  // indexOf (memchr) rather than a loop over every byte: the consumer shares the cores with the
  // pipeline it measures, and the loop took about half of its CPU
  let n = body[body.length - 1] === 0x0a ? 0 : 1;
  for (let i = body.indexOf(0x0a); i !== -1; i = body.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** Starts the consumer on 127.0.0.1 (port 0 = any). */
export async function startConsumer(port = 0): Promise<{ server: Server; port: number; stats: ConsumerStats }> {
  const stats: ConsumerStats = { events: 0, requests: 0, bytes: 0, firstAt: 0, lastAt: 0 };
  let waiting = 0;
  let waitingPeak = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(stats));
      return;
    }
    if (req.method === 'GET' && req.url === '/stats/peak') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ waitingPeak }));
      waitingPeak = waiting;
      return;
    }
    const delayMs = req.url?.includes('delay_ms=') ? Number(new URL(req.url, 'http://consumer').searchParams.get('delay_ms')) : 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      stats.bytes += body.length;
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const now = performance.timeOrigin + performance.now();
      if (stats.requests === 0) stats.firstAt = now;
      stats.lastAt = now;
      stats.requests++;
      const events = countEvents(body, req.headers['content-type']);
      stats.events += events;
      if (delayMs <= 0) {
        res.writeHead(200);
        res.end();
        return;
      }
      waiting += events;
      waitingPeak = Math.max(waitingPeak, waiting);
      setTimeout(() => {
        waiting -= events;
        res.writeHead(200);
        res.end();
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, stats };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { port } = await startConsumer(Number(process.argv[2] ?? 0));
  process.stdout.write(JSON.stringify({ port }) + '\n');
}
