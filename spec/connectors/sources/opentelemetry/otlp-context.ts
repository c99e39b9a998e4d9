/** Runs the `opentelemetry` source outside a topology with the official OTLP exporters as clients. */
import { type SchedulerLike, Subject, type Subscription } from 'rxjs';
import * as v from 'valibot';
import { componentContext, sourceContext } from '../../../../lib/component-context.js';
import type { SourceContext } from '../../../../lib/component.js';
import type { GlobalOptions } from '../../../../lib/config/global.js';
import { type LogEvent, type RoutedBatch, settleAll, type DeliveryStatus } from '../../../../lib/event.js';
import { GateController } from '../../../../lib/gate.js';
import { LogRoot } from '../../../../lib/log.js';
import { MetricsRegistry } from '../../../../lib/telemetry/registry.js';
import { OpentelemetrySourceConfig, buildOpentelemetrySource } from '../../../../connectors/sources/opentelemetry/index.js';
import { until } from '../../../helpers/wait.js';

export interface RunningSource {
  readonly ctx: SourceContext;
  readonly gate: GateController;
  readonly lines: string[];
  readonly batches: RoutedBatch[];
  readonly grpcPort: number;
  readonly httpPort: number;
  events(): LogEvent[];
  metric(name: string, tags?: Record<string, string>): number;
  /** Settles every batch received so far (end-to-end acknowledgements). */
  settle(status: DeliveryStatus): void;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly acknowledgements?: boolean;
  readonly globals?: Partial<GlobalOptions>;
  readonly grpc?: Record<string, unknown>;
  readonly http?: Record<string, unknown>;
  readonly extra?: Record<string, unknown>;
  /** The source's scheduler (hold timeouts); default: the async scheduler. */
  readonly scheduler?: SchedulerLike;
}

/** Builds and subscribes the source on port 0 for both listeners; resolves once both listen. */
export async function startSource(o: StartOptions = {}): Promise<RunningSource> {
  const registry = new MetricsRegistry({});
  const lines: string[] = [];
  const root = new LogRoot('debug', { write: (l) => lines.push(l) }, 0);
  const gate = new GateController(true);
  const shutdown = new Subject<void>();
  const base = componentContext({ id: 'otel', kind: 'source', type: 'opentelemetry', registry, log: root, globals: { timezone: 'UTC', ...o.globals }, ...(o.scheduler ? { scheduler: o.scheduler } : {}) });
  const ctx = sourceContext(base, { out: gate, acknowledgements: o.acknowledgements ?? false, shutdown$: shutdown.asObservable() });
  const config = v.parse(OpentelemetrySourceConfig, {
    type: 'opentelemetry',
    grpc: { address: '127.0.0.1:0', ...o.grpc },
    http: { address: '127.0.0.1:0', ...o.http },
    ...o.extra,
  });
  const batches: RoutedBatch[] = [];
  let completed = false;
  const sub: Subscription = buildOpentelemetrySource(config, ctx).subscribe({ next: (b) => batches.push(b), complete: () => (completed = true) });
  const port = (protocol: string) => {
    for (const l of lines) {
      const m = new RegExp(`Listening\\..*protocol=${protocol}.*address=\\S+:(\\d+)`).exec(l) ?? new RegExp(`Listening\\..*address=\\S+:(\\d+).*protocol=${protocol}`).exec(l);
      if (m) return Number(m[1]);
    }
    return 0;
  };
  await until(() => port('grpc') > 0 && port('http') > 0, 10_000, 'both listeners');
  let settledUpTo = 0;
  return {
    ctx,
    gate,
    lines,
    batches,
    grpcPort: port('grpc'),
    httpPort: port('http'),
    events: () => batches.flatMap((b) => b.events as LogEvent[]),
    metric: (name, tags = {}) => registry.sum(name, { component_id: 'otel', ...tags }),
    settle(status) {
      for (; settledUpTo < batches.length; settledUpTo++) settleAll(batches[settledUpTo]!.events, status);
    },
    async stop() {
      shutdown.next();
      await until(() => completed, 35_000, 'the source to complete');
      sub.unsubscribe();
    },
  };
}
