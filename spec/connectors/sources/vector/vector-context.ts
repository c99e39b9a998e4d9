/** Runs the `vector` source outside a topology, with a raw gRPC client speaking Vector's protocol. */
import * as grpc from '@grpc/grpc-js';
import { type SchedulerLike, Subject, type Subscription } from 'rxjs';
import * as v from 'valibot';
import { componentContext, sourceContext } from '../../../../lib/component-context.js';
import type { SourceContext } from '../../../../lib/component.js';
import type { GlobalOptions } from '../../../../lib/config/global.js';
import { type DeliveryStatus, type Event, type EventBatch, settleAll } from '../../../../lib/event.js';
import { GateController } from '../../../../lib/gate.js';
import { LogRoot } from '../../../../lib/log.js';
import { MetricsRegistry } from '../../../../lib/telemetry/registry.js';
import { VectorSourceConfig, buildVectorSource } from '../../../../connectors/sources/vector/index.js';
import { until } from '../../../helpers/wait.js';

export const PUSH = '/vector.Vector/PushEvents';
export const HEALTH = '/vector.Vector/HealthCheck';
export const GRPC_HEALTH = '/grpc.health.v1.Health/Check';

export interface RunningVectorSource {
  readonly ctx: SourceContext;
  readonly gate: GateController;
  readonly lines: string[];
  readonly batches: EventBatch[];
  readonly port: number;
  events(): Event[];
  metric(name: string, tags?: Record<string, string>): number;
  settle(status: DeliveryStatus): void;
  /** Sends the stop signal (drain) without waiting. */
  shutdown(): void;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly acknowledgements?: boolean;
  readonly globals?: Partial<GlobalOptions>;
  readonly options?: Record<string, unknown>;
  readonly scheduler?: SchedulerLike;
}

export async function startVectorSource(o: StartOptions = {}): Promise<RunningVectorSource> {
  const registry = new MetricsRegistry({});
  const lines: string[] = [];
  const root = new LogRoot('debug', { write: (l) => lines.push(l) }, 0);
  const gate = new GateController(true);
  const shutdown = new Subject<void>();
  const base = componentContext({ id: 'in', kind: 'source', type: 'vector', registry, log: root, globals: { timezone: 'UTC', ...o.globals }, ...(o.scheduler ? { scheduler: o.scheduler } : {}) });
  const ctx = sourceContext(base, { out: gate, acknowledgements: o.acknowledgements ?? false, shutdown$: shutdown.asObservable() });
  const config = v.parse(VectorSourceConfig, { type: 'vector', address: '127.0.0.1:0', ...o.options });
  const batches: EventBatch[] = [];
  let completed = false;
  let failed: unknown;
  const sub: Subscription = buildVectorSource(config, ctx).subscribe({ next: (b) => batches.push(b), complete: () => (completed = true), error: (e) => (failed = e) });
  const port = () => {
    for (const l of lines) {
      const m = /Listening\..*address=\S+:(\d+)/.exec(l);
      if (m) return Number(m[1]);
    }
    return 0;
  };
  await until(() => port() > 0 || failed !== undefined, 10_000, 'the listener');
  if (failed !== undefined) throw failed;
  let settledUpTo = 0;
  return {
    ctx,
    gate,
    lines,
    batches,
    port: port(),
    events: () => batches.flat(),
    metric: (name, tags = {}) => registry.sum(name, { component_id: 'in', ...tags }),
    settle(status) {
      for (; settledUpTo < batches.length; settledUpTo++) settleAll(batches[settledUpTo]!, status);
    },
    shutdown: () => shutdown.next(),
    async stop() {
      shutdown.next();
      await until(() => completed || failed !== undefined, 35_000, 'the source to complete');
      sub.unsubscribe();
    },
  };
}

export interface CallResult {
  readonly err: grpc.ServiceError | null;
  readonly res?: Buffer;
}

/** One unary call, raw bytes in and out. */
export function call(port: number, path: string, body: Buffer, opts: { creds?: grpc.ChannelCredentials; channel?: grpc.ChannelOptions; deadlineMs?: number } = {}): Promise<CallResult> {
  const client = new grpc.Client(`127.0.0.1:${port}`, opts.creds ?? grpc.credentials.createInsecure(), opts.channel);
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, body, opts.deadlineMs ? { deadline: Date.now() + opts.deadlineMs } : {}, (err, res) => {
      client.close();
      resolve({ err, res });
    });
  });
}
