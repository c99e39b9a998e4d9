/** The official OTLP log exporters (`@opentelemetry/sdk-logs` with the http, proto and grpc exporters) as test clients. */
import { credentials } from '@grpc/grpc-js';
import { OTLPLogExporter as GrpcExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as HttpJsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as HttpProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import type { LogRecord } from '@opentelemetry/api-logs';

/** Which exporter sends. */
export type ExporterKind = 'http-json' | 'http-json-gzip' | 'http-proto' | 'http-proto-gzip' | 'grpc' | 'grpc-gzip';

export interface ExporterOptions {
  /** PEM of the CA for TLS listeners. */
  readonly ca?: Buffer;
  /** Export deadline; the exporters' default is 10 s. */
  readonly timeoutMillis?: number;
}

/** One exporter aimed at the source's listener. */
export function exporterFor(kind: ExporterKind, ports: { httpPort: number; grpcPort: number }, o: ExporterOptions = {}): LogRecordExporter {
  const scheme = o.ca ? 'https' : 'http';
  const url = `${scheme}://127.0.0.1:${ports.httpPort}/v1/logs`;
  const gzip = kind.endsWith('-gzip');
  const compression = (gzip ? 'gzip' : 'none') as never;
  const timeout = o.timeoutMillis !== undefined ? { timeoutMillis: o.timeoutMillis } : {};
  if (kind.startsWith('http-json')) return new HttpJsonExporter({ url, compression, ...timeout, ...(o.ca ? { httpAgentOptions: { ca: o.ca } } : {}) });
  if (kind.startsWith('http-proto')) return new HttpProtoExporter({ url, compression, ...timeout, ...(o.ca ? { httpAgentOptions: { ca: o.ca } } : {}) });
  return new GrpcExporter({
    url: `${scheme}://127.0.0.1:${ports.grpcPort}`,
    compression,
    ...timeout,
    credentials: o.ca ? credentials.createSsl(o.ca) : credentials.createInsecure(),
  });
}

/** Emits the records through a provider with this exporter, then flushes and shuts it down. */
export async function sendLogs(exporter: LogRecordExporter, records: readonly LogRecord[], opts: { batch?: boolean; scope?: string; version?: string } = {}): Promise<void> {
  const processor = opts.batch ? new BatchLogRecordProcessor({ exporter, maxExportBatchSize: 200, maxQueueSize: 100_000, scheduledDelayMillis: 20 }) : new SimpleLogRecordProcessor({ exporter });
  const provider = new LoggerProvider({ resource: resourceFromAttributes({ 'service.name': 'weir-test' }), processors: [processor] });
  const logger = provider.getLogger(opts.scope ?? 'scope-a', opts.version ?? '1.0.0');
  for (const r of records) logger.emit(r);
  await provider.forceFlush();
  await provider.shutdown();
}
