/**
 * PutMetricData on the official SDK client. The pinned client speaks awsJson
 * 1.0; `compression = "gzip"` turns on its request compression for every body (it would otherwise
 * compress bodies from 10 KiB on), `none` turns it off.
 */

import type { ComponentContext } from '../../../lib/component.js';
import { type CloudwClientConfig, cloudwClientConfig } from '../../shared/cloudw/client.js';
import type { CloudwMonitorMetricsConfig } from './config.js';
import type { MetricsRequest } from './request.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const cloudwatch = lazyModule<typeof import('@aws-sdk/client-cloudwatch')>('@aws-sdk/client-cloudwatch');

/** How far one send got: the calls accepted, and the error that stopped the rest. */
export interface PutOutcome {
  readonly done: number;
  readonly error?: unknown;
}

/** The calls the sink makes, on one client. */
export interface MetricsService {
  /** Sends the calls of a request in order; stops at the first failure and says how far it got. */
  send(req: MetricsRequest, signal: AbortSignal): Promise<PutOutcome>;
  /** As Vector checks: one datum `healthcheck` = 1 in `default_namespace`. */
  healthcheck(signal: AbortSignal): Promise<void>;
  readonly config: CloudwClientConfig;
  close(): void;
}

/** Builds the client; TLS files are read here, so bad ones fail at build. */
export function createMetricsService(config: CloudwMonitorMetricsConfig, ctx: Pick<ComponentContext, 'globals'>): MetricsService {
  const clientConfig = cloudwClientConfig(config, ctx);
  const client = new (cloudwatch().CloudWatchClient)({ ...clientConfig, disableRequestCompression: config.compression === 'none', requestMinCompressionSizeBytes: 0 });
  const headers = Object.entries(config.request.headers);
  // `request.headers` (Vector's option) on every call, signed with the rest
  if (headers.length > 0)
    client.middlewareStack.add(
      (next) => async (args) => {
        const req = args.request as { headers?: Record<string, string> };
        if (req.headers) for (const [k, v] of headers) req.headers[k.toLowerCase()] = v;
        return next(args);
      },
      { step: 'build', name: 'weirRequestHeaders' },
    );
  return {
    config: clientConfig,
    async send(req, abortSignal) {
      for (let i = 0; i < req.calls.length; i++) {
        const call = req.calls[i]!;
        // a call of first totals only has no datum to send
        if (call.datums.length === 0) continue;
        try {
          await client.send(new (cloudwatch().PutMetricDataCommand)({ Namespace: req.namespace, MetricData: call.datums as never }), { abortSignal });
        } catch (error) {
          return { done: i, error };
        }
      }
      return { done: req.calls.length };
    },
    async healthcheck(abortSignal) {
      await client.send(new (cloudwatch().PutMetricDataCommand)({ Namespace: config.default_namespace, MetricData: [{ MetricName: 'healthcheck', Value: 1 }] }), { abortSignal });
    },
    close: () => client.destroy(),
  };
}
