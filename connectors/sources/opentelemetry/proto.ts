/**
 * The OTLP logs messages, read from the official `.proto` files (the `otlp-protos` package, an
 * older OTLP revision) with protobufjs. Fields that revision lacks are added by reflection with
 * their numbers from the current protocol: scope `attributes` (3) and `dropped_attributes_count`
 * (4), the response's `partial_success` (1). `google.rpc.Status` (code 1, message 2) carries the
 * HTTP error bodies.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type protobuf from 'protobufjs';
import { lazyModule } from '../../../lib/lazy-module.js';

const PROTOS = join(dirname(createRequire(import.meta.url).resolve('otlp-protos/package.json')), 'build', 'protos');
const protobufjs = lazyModule<typeof protobuf>('protobufjs');
const SERVICE_FILE = 'opentelemetry/proto/collector/logs/v1/logs_service.proto';

/** The loaded logs types and the gRPC method path. */
export interface OtlpLogsProto {
  readonly request: protobuf.Type;
  readonly response: protobuf.Type;
  readonly status: protobuf.Type;
  /** `/opentelemetry.proto.collector.logs.v1.LogsService/Export`. */
  readonly exportPath: string;
}

let loaded: OtlpLogsProto | undefined;

/** Loads the protos once per process (synchronously: at build time, never per request). */
export function otlpLogsProto(): OtlpLogsProto {
  if (loaded) return loaded;
  const pb = protobufjs();
  const root = new pb.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('/') ? target : join(PROTOS, target));
  root.loadSync(SERVICE_FILE, { keepCase: false });
  const scope = root.lookupType('opentelemetry.proto.common.v1.InstrumentationScope');
  if (!scope.fields.attributes) scope.add(new pb.Field('attributes', 3, 'opentelemetry.proto.common.v1.KeyValue', 'repeated'));
  if (!scope.fields.droppedAttributesCount) scope.add(new pb.Field('droppedAttributesCount', 4, 'uint32'));
  const pkg = root.lookup('opentelemetry.proto.collector.logs.v1') as protobuf.Namespace;
  const response = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');
  if (!response.fields.partialSuccess) {
    const partial = new pb.Type('ExportLogsPartialSuccess')
      .add(new pb.Field('rejectedLogRecords', 1, 'int64'))
      .add(new pb.Field('errorMessage', 2, 'string'));
    pkg.add(partial);
    response.add(new pb.Field('partialSuccess', 1, 'ExportLogsPartialSuccess'));
  }
  const rpc = new pb.Namespace('google').add(new pb.Namespace('rpc'));
  root.add(rpc);
  const status = new pb.Type('Status').add(new pb.Field('code', 1, 'int32')).add(new pb.Field('message', 2, 'string'));
  (root.lookup('google.rpc') as protobuf.Namespace).add(status);
  root.resolveAll();
  const service = root.lookupService('opentelemetry.proto.collector.logs.v1.LogsService');
  const method = service.methods.Export;
  if (!method) throw new Error('otlp-protos: LogsService has no Export method');
  loaded = {
    request: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
    response,
    status,
    exportPath: `/${service.fullName.slice(1)}/${method.name}`,
  };
  return loaded;
}

/** What a partial success reports: how many records were refused and why. */
export interface PartialSuccess {
  readonly rejected: number;
  readonly message: string;
}

/** The encoded response; empty (no `partial_success`) when nothing was rejected. */
export function encodeResponse(proto: OtlpLogsProto, partial: PartialSuccess | undefined): Buffer {
  const body = partial === undefined ? {} : { partialSuccess: { rejectedLogRecords: partial.rejected, errorMessage: partial.message } };
  return Buffer.from(proto.response.encode(proto.response.create(body)).finish());
}

/** OTLP/JSON form of the response (`partialSuccess` with the int64 as a string, per the JSON mapping). */
export function responseJson(partial: PartialSuccess | undefined): string {
  return partial === undefined ? '{}' : JSON.stringify({ partialSuccess: { rejectedLogRecords: String(partial.rejected), errorMessage: partial.message } });
}
