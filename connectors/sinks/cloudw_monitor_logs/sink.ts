/** The `cloudw_monitor_logs` sink (Vector's `aws_cloudwatch_logs`) as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { TemplateError } from '../../../lib/template.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { cloudwHealthcheck } from '../../shared/cloudw/healthcheck.js';
import { isRetriableCloudwError } from '../../shared/cloudw/retry.js';
import { type Verdict, requestSink } from '../../shared/request-sink.js';
import type { CloudwMonitorLogsConfig } from './config.js';
import { type LogEntry, createLogsEncoder } from './encoder.js';
import { LogsSinkEvents } from './events.js';
import { type LogsRequest, buildLogsRequest, remaining } from './request.js';
import { DestinationNotReadyError, type LogsService, MissingDestinationError, type PutOutcome, createLogsService } from './service.js';

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** A missing destination the options forbid creating is final, one just made but not yet seen is not; the rest follows the shared classes. */
const isRetriable = (err: unknown): boolean => err instanceof DestinationNotReadyError || (!(err instanceof MissingDestinationError) && isRetriableCloudwError(err));

/** Turns how far a send got into the skeleton's verdict: calls already accepted are not sent again. */
export function classifyOutcome(out: PutOutcome, req: LogsRequest): Verdict<LogsRequest> {
  if (out.error === undefined) return { kind: 'ok' };
  const error = asError(out.error);
  if (out.done > 0) return { kind: 'partial', delivered: req.calls.slice(0, out.done).flatMap((c) => c.events), rest: remaining(req, out.done), error };
  return isRetriable(out.error) ? { kind: 'retry', error } : { kind: 'reject', error };
}

/** Builds the sink; options that cannot work (TLS files) fail here. */
export function buildCloudwMonitorLogsSink(config: CloudwMonitorLogsConfig, ctx: SinkContext, service?: LogsService): OperatorFunction<EventBatch, Delivery> {
  const events = new LogsSinkEvents(ctx);
  const now = () => ctx.scheduler.now();
  const encode = createLogsEncoder(config, now, ctx.globals.log_schema, ctx.globals.timezone);
  const logs = service ?? createLogsService(config, ctx, { rejectedByService: (info, req) => events.refused(info, req.group, req.stream) });
  const limits = batchLimits(config.batch);
  return requestSink<LogEntry, LogsRequest, PutOutcome>(
    {
      encode,
      // one batch per group and stream, as in Vector
      partition: (item) => {
        if (item.target instanceof TemplateError) throw item.target;
        return item.target;
      },
      build: (items, key) => {
        const req = buildLogsRequest(items, key!, Math.floor(now()), limits);
        if (req.outOfRange.length > 0) events.outOfRange(req.outOfRange, req.group, req.stream);
        return req;
      },
      // a batch whose events were all out of range has nothing to send
      send: (req, signal) => (req.calls.length === 0 ? Promise.resolve({ done: 0 }) : logs.send(req, signal)),
      classify: classifyOutcome,
      isRetriableError: isRetriable,
      close: () => (service ? undefined : logs.close()),
    },
    { limits, request: config.request },
    ctx,
  );
}

/** As Vector checks: DescribeLogGroups after the credentials resolve; never retried. */
export async function cloudwMonitorLogsHealthcheck(config: CloudwMonitorLogsConfig, ctx: Pick<ComponentContext, 'globals' | 'log'>, service?: LogsService): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const logs = service ?? createLogsService(config, ctx);
  try {
    await cloudwHealthcheck(logs.config.credentials, (signal) => logs.healthcheck(signal), config.request.timeout_secs * 1000);
  } finally {
    if (!service) logs.close();
  }
}
