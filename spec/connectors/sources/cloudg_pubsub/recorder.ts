/**
 * An HTTP pass-through to the Pub/Sub emulator that records each call (verb, JSON body, query,
 * arrival time), counts pulls in flight (and their peak), and can answer the next pulls with 503.
 * With `holdPullsMs` it plays a service whose empty long poll ends after that long (the emulator
 * holds one for 90 s): it asks the emulator without waiting, every 20 ms, until messages come or
 * the time is up, then answers.
 */
import { type IncomingMessage, type RequestListener, type Server, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

export interface RecordedCall {
  readonly verb: string;
  readonly body: Record<string, unknown>;
  readonly query: string;
  readonly authorization: string | undefined;
  readonly at: number;
}

export interface Recorder {
  readonly url: string;
  readonly calls: RecordedCall[];
  /** Pulls waiting for an answer now, and the most at once since the last reset. */
  readonly inFlight: { now: number; peak: number };
  /** Answers the next `n` pulls with 503. */
  failPulls(n: number): void;
  /** Empty long polls end after this long; undefined: the emulator's own wait. */
  holdPullsMs: number | undefined;
  reset(): void;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

/** Starts the pass-through on 127.0.0.1; with `tls` (PEM certificate and key) it serves HTTPS. */
export async function startRecorder(target: string, tls?: { cert: Buffer; key: Buffer }): Promise<Recorder> {
  let failing = 0;
  const rec = {
    url: '',
    calls: [] as RecordedCall[],
    inFlight: { now: 0, peak: 0 },
    failPulls: (n: number) => (failing = n),
    holdPullsMs: undefined as number | undefined,
    reset() {
      rec.holdPullsMs = undefined;
      rec.calls.length = 0;
      rec.inFlight.peak = rec.inFlight.now;
      failing = 0;
    },
    close: async () => {},
  };
  const handler: RequestListener = (req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://x');
      const verb = url.pathname.split(':').pop() ?? '';
      rec.calls.push({ verb, body: body.length > 0 ? (JSON.parse(body.toString()) as Record<string, unknown>) : {}, query: url.search, authorization: req.headers.authorization, at: Date.now() });
      if (verb === 'pull' && failing > 0) {
        failing--;
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":503,"message":"unavailable"}}');
        return;
      }
      const isPull = verb === 'pull';
      let counted = isPull;
      const uncount = () => {
        if (counted) rec.inFlight.now--;
        counted = false;
      };
      if (isPull) rec.inFlight.peak = Math.max(rec.inFlight.peak, ++rec.inFlight.now);
      // a pull the client cut stops counting at once, and is cut upstream too
      const cut = new AbortController();
      res.on('close', () => {
        uncount();
        if (!res.writableFinished) cut.abort();
      });
      const forward = async (b: Buffer) => {
        const up = await fetch(`${target}${url.pathname}${url.search}`, { method: req.method, headers: { 'content-type': 'application/json' }, body: b.length > 0 ? b : undefined, signal: cut.signal });
        return { status: up.status, text: await up.text() };
      };
      try {
        let answer: { status: number; text: string };
        const hold = rec.holdPullsMs;
        if (isPull && hold !== undefined) {
          const quick = Buffer.from(JSON.stringify({ ...(JSON.parse(body.toString()) as object), returnImmediately: true }));
          const until = Date.now() + hold;
          for (;;) {
            answer = await forward(quick);
            if (answer.status !== 200 || answer.text.includes('receivedMessages') || Date.now() >= until || res.destroyed) break;
            await new Promise((r) => setTimeout(r, 20));
          }
        } else answer = await forward(body);
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
      } catch {
        if (!res.destroyed) res.writeHead(502).end();
      } finally {
        uncount();
      }
    })();
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rec.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as { port: number }).port}`;
  rec.close = () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
  return rec;
}
