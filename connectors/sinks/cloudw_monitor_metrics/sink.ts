/** The `cloudw_monitor_metrics` sink (Vector's `aws_cloudwatch_metrics`) as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { cloudwHealthcheck } from '../../shared/cloudw/healthcheck.js';
import { isRetriableCloudwError } from '../../shared/cloudw/retry.js';
import { type Verdict, requestSink } from '../../shared/request-sink.js';
import type { CloudwMonitorMetricsConfig } from './config.js';
import { type MetricItem, createMetricsEncoder } from './encoder.js';
import { MetricsSinkEvents } from './events.js';
import { type MetricsRequest, buildMetricsRequest, remaining } from './request.js';
import { type MetricsService, type PutOutcome, createMetricsService } from './service.js';

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** Turns how far a send got into the skeleton's verdict: calls already accepted are not sent again. */
export function classifyOutcome(out: PutOutcome, req: MetricsRequest): Verdict<MetricsRequest> {
  if (out.error === undefined) return { kind: 'ok' };
  const error = asError(out.error);
  if (out.done > 0) return { kind: 'partial', delivered: req.calls.slice(0, out.done).flatMap((c) => c.events), rest: remaining(req, out.done), error };
  return isRetriableCloudwError(out.error) ? { kind: 'retry', error } : { kind: 'reject', error };
}

/** Builds the sink; options that cannot work (TLS files) fail here. */
export function buildCloudwMonitorMetricsSink(config: CloudwMonitorMetricsConfig, ctx: SinkContext, service?: MetricsService): OperatorFunction<EventBatch, Delivery> {
  const events = new MetricsSinkEvents(ctx);
  const encode = createMetricsEncoder(config.default_namespace, (name, dropped) => events.truncated(name, dropped));
  const metrics = service ?? createMetricsService(config, ctx);
  return requestSink<MetricItem, MetricsRequest, PutOutcome>(
    {
      encode,
      // one request per namespace, as in Vector
      partition: (item) => item.namespace,
      build: (items, key) => {
        const req = buildMetricsRequest(items, key!, Math.floor(ctx.scheduler.now()));
        events.dropped(req.unsupported, 'aggregated histograms and summaries have no datum form');
        events.dropped(req.outOfRange, 'timestamps older than 14 days or more than 2 hours ahead are refused by the service');
        return req;
      },
      send: (req, signal) => metrics.send(req, signal),
      classify: classifyOutcome,
      isRetriableError: isRetriableCloudwError,
      close: () => (service ? undefined : metrics.close()),
    },
    { limits: batchLimits(config.batch), request: config.request },
    ctx,
  );
}

/** As Vector checks: one PutMetricData of `healthcheck` = 1 after the credentials resolve; never retried. */
export async function cloudwMonitorMetricsHealthcheck(config: CloudwMonitorMetricsConfig, ctx: Pick<ComponentContext, 'globals'>, service?: MetricsService): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const metrics = service ?? createMetricsService(config, ctx);
  try {
    await cloudwHealthcheck(metrics.config.credentials, (signal) => metrics.healthcheck(signal), config.request.timeout_secs * 1000);
  } finally {
    if (!service) metrics.close();
  }
}
