/** Runs the `http_server` source outside a topology on 127.0.0.1, port 0, with node:http as the client. */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type SchedulerLike, Subject, type Subscription } from 'rxjs';
import * as v from 'valibot';
import { componentContext, sourceContext } from '../../../../lib/component-context.js';
import type { GlobalOptions } from '../../../../lib/config/global.js';
import { type DeliveryStatus, type Event, type EventBatch, type LogEvent, settleAll } from '../../../../lib/event.js';
import { GateController } from '../../../../lib/gate.js';
import { LogRoot } from '../../../../lib/log.js';
import { MetricsRegistry } from '../../../../lib/telemetry/registry.js';
import { HttpServerSourceConfig, httpServerSource } from '../../../../connectors/sources/http_server/index.js';
import { until } from '../../../helpers/wait.js';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SendOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** CA for an https listener. */
  ca?: Buffer;
}

export interface RunningHttpServer {
  readonly gate: GateController;
  readonly lines: string[];
  readonly batches: EventBatch[];
  readonly port: number;
  events(): Event[];
  logs(): LogEvent[];
  metric(name: string, tags?: Record<string, string>): number;
  send(o?: SendOptions): Promise<Reply>;
  /** Settles every batch received so far (end-to-end acknowledgements). */
  settle(status: DeliveryStatus): void;
  stop(): void;
  /** Signals shutdown; resolves when the source completes. */
  drain(): Promise<void>;
}

export interface StartOptions {
  readonly acknowledgements?: boolean;
  readonly globals?: Partial<GlobalOptions>;
  readonly scheduler?: SchedulerLike;
}

/** Builds and subscribes the source; resolves once it listens. */
export async function startHttpServer(options: Record<string, unknown> = {}, o: StartOptions = {}): Promise<RunningHttpServer> {
  const registry = new MetricsRegistry({});
  const lines: string[] = [];
  // no rate-limit window, so every warning is visible to the test
  const root = new LogRoot('debug', { write: (l) => lines.push(l) }, 0);
  const gate = new GateController(true);
  const shutdown = new Subject<void>();
  const base = componentContext({
    id: 'in',
    kind: 'source',
    type: 'http_server',
    registry,
    log: root.logger({ component_id: 'in' }),
    globals: { timezone: 'UTC', ...o.globals },
    scheduler: o.scheduler,
  });
  const ctx = sourceContext(base, { out: gate, acknowledgements: o.acknowledgements ?? false, shutdown$: shutdown.asObservable() });
  const config = v.parse(HttpServerSourceConfig, { type: 'http_server', address: '127.0.0.1:0', ...options });
  const batches: EventBatch[] = [];
  let completed: () => void = () => undefined;
  const done = new Promise<void>((r) => (completed = r));
  const sub: Subscription = httpServerSource.build(config, ctx).subscribe({ next: (b) => batches.push(b as EventBatch), complete: () => completed() });
  let port = 0;
  await until(
    () => {
      for (const l of lines) {
        const m = /Listening\..*address=\S+:(\d+)/.exec(l);
        if (m) port = Number(m[1]);
      }
      return port !== 0;
    },
    5000,
    'listening',
  );
  const https = (options.tls as { enabled?: boolean } | undefined)?.enabled === true;
  let settledUpTo = 0;
  return {
    gate,
    lines,
    batches,
    port,
    events: () => batches.flat(),
    logs: () => batches.flat() as LogEvent[],
    metric: (name, tags = {}) => registry.sum(name, { component_id: 'in', ...tags }),
    send: (s = {}) =>
      new Promise<Reply>((resolve, reject) => {
        const req = (https ? httpsRequest : httpRequest)(
          { host: '127.0.0.1', port, method: s.method ?? 'POST', path: s.path ?? '/', headers: s.headers, agent: false, ca: s.ca, servername: 'localhost' },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(s.body);
      }),
    settle(status) {
      for (; settledUpTo < batches.length; settledUpTo++) settleAll(batches[settledUpTo]!, status);
    },
    stop: () => sub.unsubscribe(),
    drain: () => {
      shutdown.next();
      return done;
    },
  };
}
