/** A batch to one remote-write request: time series of the (optionally aggregated) metrics, protobuf, compressed. */
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Event } from '../../../lib/event.js';
import { snappyCompress } from '../../../lib/net/snappy.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { RenderableMetric } from '../../shared/prometheus/exposition.js';
import { encodeWriteRequest } from '../../shared/prometheus/remote-write-proto.js';
import { seriesKey } from '../../shared/metrics/series.js';
import { collectTimeSeries } from '../../shared/prometheus/time-series.js';
import type { PrometheusRemoteWriteSinkConfig } from './config.js';
import type { EncodedMetric } from './encoder.js';

const gzipAsync = promisify(gzip);

export interface RemoteWriteRequest extends SinkRequest {
  readonly body: Buffer;
  readonly tenant: string | undefined;
}

/** Builds the request of one batch; `nowMs` times the metrics that have no timestamp. */
export async function buildRemoteWriteRequest(items: readonly EncodedMetric[], tenant: string | undefined, config: PrometheusRemoteWriteSinkConfig, nowMs: number): Promise<RemoteWriteRequest> {
  const events: Event[] = items.map((i) => i.event);
  let metrics: Iterable<RenderableMetric> = items.map((i) => i.metric);
  if (config.batch.aggregate) {
    // everything is absolute by now: the latest value of a series is its value
    const latest = new Map<string, RenderableMetric>();
    for (const i of items) latest.set(`${seriesKey(i.metric)}\u0003${i.metric.value.type}`, i.metric);
    metrics = latest.values();
  }
  const proto = Buffer.from(encodeWriteRequest(collectTimeSeries(metrics, { defaultNamespace: config.default_namespace, buckets: config.buckets, quantiles: config.quantiles }, nowMs)));
  const body = config.compression === 'gzip' ? await gzipAsync(proto) : snappyCompress(proto);
  return { events, body, bytes: body.length, tenant };
}
