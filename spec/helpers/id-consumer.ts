/**
 * HTTP destinations for daemon-level delivery tests on 127.0.0.1: an id consumer that records
 * how often each numbered event arrived (text or NDJSON lines starting with the decimal id) and
 * can go down and come back on the same port, and a metrics collector that keeps the latest value
 * of each internal metric series posted by an `internal_metrics -> http` pipeline.
 */
import { type Server, createServer } from 'node:http';
import type { Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface IdConsumer {
  readonly port: number;
  readonly url: string;
  /** Arrivals per id (index = id); ids outside [0, capacity) count in `unknown`. */
  readonly counts: Uint32Array;
  /** Lines whose id is not a number in range. */
  unknown: number;
  /** Events received in total (duplicates included). */
  received: number;
  /** Answers this long after a request arrived (a slow destination); 0 by default. */
  delayMs: number;
  readonly isUp: boolean;
  /** Starts listening (connections were refused until now). */
  up(): Promise<void>;
  /** Stops listening and drops open connections: the port refuses connections again. */
  down(): Promise<void>;
}

/** An id consumer on `port` (pick one with freePort), initially down. */
export function idConsumer(port: number, capacity: number): IdConsumer {
  const counts = new Uint32Array(capacity);
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const record = (text: string) => {
    let start = 0;
    while (start < text.length) {
      let nl = text.indexOf('\n', start);
      if (nl < 0) nl = text.length;
      if (nl > start) {
        const sp = text.indexOf(' ', start);
        const id = Number(text.slice(start, sp < 0 || sp > nl ? nl : sp));
        if (Number.isInteger(id) && id >= 0 && id < capacity) counts[id]!++;
        else c.unknown++;
        c.received++;
      }
      start = nl + 1;
    }
  };
  const c: IdConsumer = {
    port,
    url: `http://127.0.0.1:${port}/`,
    counts,
    unknown: 0,
    received: 0,
    delayMs: 0,
    get isUp() {
      return server !== undefined;
    },
    async up() {
      if (server) return;
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (d: Buffer) => chunks.push(d));
        req.on('end', () => {
          const answer = () => {
            // a request whose connection is gone was not delivered: the sender sends it again
            if (res.destroyed || req.socket.destroyed) return;
            let body = Buffer.concat(chunks);
            if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
            record(body.toString('utf8'));
            res.writeHead(200);
            res.end();
          };
          if (c.delayMs > 0) setTimeout(answer, c.delayMs);
          else answer();
        });
      });
      s.on('connection', (sock: Socket) => {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
      server = s;
    },
    async down() {
      const s = server;
      if (!s) return;
      server = undefined;
      const closed = new Promise((r) => s.close(r));
      for (const sock of sockets) sock.destroy();
      await closed;
    },
  };
  return c;
}

export interface MetricsCollector {
  readonly url: string;
  /** Latest value of `name` for `component_id`, undefined before the first report. */
  value(name: string, componentId: string): number | undefined;
  /** Forgets every value (a restarted daemon reports from zero). */
  reset(): void;
  close(): Promise<void>;
}

/** Accepts the `json` encoding of metric events (a JSON array per request) on port 0. */
export async function metricsCollector(): Promise<MetricsCollector> {
  const latest = new Map<string, { at: number; value: number }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      try {
        const items = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[];
        for (const raw of items) {
          const m = raw as { name?: string; tags?: Record<string, string>; timestamp?: string; gauge?: { value: number }; counter?: { value: number } };
          const v = m.gauge?.value ?? m.counter?.value;
          const id = m.tags?.component_id;
          if (!m.name || id === undefined || typeof v !== 'number') continue;
          const key = `${m.name}\n${id}`;
          const at = m.timestamp ? Date.parse(m.timestamp) : 0;
          // requests in flight together may land out of order: keep the newest scrape
          if (at >= (latest.get(key)?.at ?? -Infinity)) latest.set(key, { at, value: v });
        }
      } catch {
        // not metrics: ignored
      }
      res.writeHead(200);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    value: (name, id) => latest.get(`${name}\n${id}`)?.value,
    reset: () => latest.clear(),
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
