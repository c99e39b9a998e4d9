/** The catalog: the one list of every component weir has. Registration is this list, not import side effects. */
import type { ComponentDef, ComponentKind } from '../lib/component.js';
import type { Catalog } from '../lib/config/load.js';
import { cloudgPubsubSource } from './sources/cloudg_pubsub/index.js';
import { cloudwQueueSource } from './sources/cloudw_queue/index.js';
import { demoLogsSource } from './sources/demo_logs/index.js';
import { eventdbMetricsSource } from './sources/eventdb_metrics/index.js';
import { fileSource } from './sources/file/index.js';
import { hostMetricsSource } from './sources/host_metrics/index.js';
import { httpServerSource } from './sources/http_server/index.js';
import { internalMetricsSource } from './sources/internal_metrics/index.js';
import { journalSource } from './sources/journal/index.js';
import { logfwdSource } from './sources/logfwd/index.js';
import { kafkaSource } from './sources/kafka/index.js';
import { natsSource } from './sources/nats/index.js';
import { prometheusRemoteWriteSource } from './sources/prometheus_remote_write/index.js';
import { prometheusScrapeSource } from './sources/prometheus_scrape/index.js';
import { opentelemetrySource } from './sources/opentelemetry/index.js';
import { socketSource } from './sources/socket/index.js';
import { stdinSource } from './sources/stdin/index.js';
import { syslogSource } from './sources/syslog/index.js';
import { vectorSource } from './sources/vector/index.js';
import { aggregateTransform } from './transforms/aggregate/index.js';
import { filterTransform } from './transforms/filter/index.js';
import { logToMetricTransform } from './transforms/log_to_metric/index.js';
import { routeTransform } from './transforms/route/index.js';
import { reduceTransform } from './transforms/reduce/index.js';
import { remapTransform } from './transforms/remap/index.js';
import { throttleTransform } from './transforms/throttle/index.js';
import { tokenizerTransform } from './transforms/tokenizer/index.js';
import { blackholeSink } from './sinks/blackhole/index.js';
import { cloudwMonitorLogsSink } from './sinks/cloudw_monitor_logs/index.js';
import { cloudwMonitorMetricsSink } from './sinks/cloudw_monitor_metrics/index.js';
import { cloudwObjectStorageSink } from './sinks/cloudw_object_storage/index.js';
import { cloudwQueueSink } from './sinks/cloudw_queue/index.js';
import { cloudwStreamSink } from './sinks/cloudw_stream/index.js';
import { cloudgObjectStorageSink } from './sinks/cloudg_object_storage/index.js';
import { cloudgPubsubSink } from './sinks/cloudg_pubsub/index.js';
import { consoleSink } from './sinks/console/index.js';
import { fileSink } from './sinks/file/index.js';
import { httpSink } from './sinks/http/index.js';
import { labelstoreSink } from './sinks/labelstore/index.js';
import { logsvcMetricsSink } from './sinks/logsvc_metrics/index.js';
import { kafkaSink } from './sinks/kafka/index.js';
import { natsSink } from './sinks/nats/index.js';
import { prometheusExporterSink } from './sinks/prometheus_exporter/index.js';
import { prometheusRemoteWriteSink } from './sinks/prometheus_remote_write/index.js';
import { siemHecMetricsSink } from './sinks/siem_hec_metrics/index.js';
import { socketSink } from './sinks/socket/index.js';
import { tsdbMetricsSink } from './sinks/tsdb_metrics/index.js';
import { vectorSink } from './sinks/vector/index.js';

export const components: readonly ComponentDef[] = [
  cloudgPubsubSource,
  cloudwQueueSource,
  demoLogsSource,
  eventdbMetricsSource,
  fileSource,
  hostMetricsSource,
  httpServerSource,
  internalMetricsSource,
  journalSource,
  logfwdSource,
  kafkaSource,
  natsSource,
  opentelemetrySource,
  prometheusRemoteWriteSource,
  prometheusScrapeSource,
  socketSource,
  stdinSource,
  syslogSource,
  vectorSource,
  aggregateTransform,
  filterTransform,
  logToMetricTransform,
  routeTransform,
  reduceTransform,
  remapTransform,
  throttleTransform,
  tokenizerTransform,
  blackholeSink,
  cloudwMonitorLogsSink,
  cloudwMonitorMetricsSink,
  cloudwObjectStorageSink,
  cloudwQueueSink,
  cloudwStreamSink,
  cloudgObjectStorageSink,
  cloudgPubsubSink,
  consoleSink,
  fileSink,
  httpSink,
  labelstoreSink,
  logsvcMetricsSink,
  kafkaSink,
  natsSink,
  prometheusExporterSink,
  prometheusRemoteWriteSink,
  siemHecMetricsSink,
  socketSink,
  tsdbMetricsSink,
  vectorSink,
] as unknown as readonly ComponentDef[];

/** Lookup of the catalog by kind and type; a type may be one of a component's aliases (Vector's name). */
export const catalog: Catalog = {
  find: (kind: ComponentKind, type: string) =>
    components.find((c) => c.kind === kind && c.type === type) ?? components.find((c) => c.kind === kind && c.aliases?.includes(type)),
  types: (kind: ComponentKind) => components.filter((c) => c.kind === kind).map((c) => c.type).sort(),
};

/** The pipeline worker's module, for `new Topology({ threads, workerEntry })` (docs/threads.md). */
export const pipelineWorkerEntry = new URL(import.meta.url.endsWith('.ts') ? './threads/worker.ts' : './threads/worker.js', import.meta.url);
