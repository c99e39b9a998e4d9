/** `opentelemetry`: receive OTLP logs over gRPC and HTTP. */
import { defineSource } from '../../../lib/component.js';
import { OpentelemetrySourceConfig } from './config.js';
import { LOGS_OUTPUT } from './ingest.js';
import { buildOpentelemetrySource } from './source.js';

export { OpentelemetrySourceConfig } from './config.js';
export { buildOpentelemetrySource } from './source.js';

/** The `opentelemetry` source definition: logs only, on the named output `logs`. */
export const opentelemetrySource = defineSource({
  drainsOnShutdown: true,
  acknowledges: true,
  type: 'opentelemetry',
  summary: 'Receive OpenTelemetry logs over OTLP/gRPC and OTLP/HTTP (protobuf or JSON).',
  schema: OpentelemetrySourceConfig,
  outputs: () => [{ name: LOGS_OUTPUT, type: 'log' }],
  build: buildOpentelemetrySource,
});
