/**
 * Vector's `vector` protocol as protobufjs types, read from the `.proto` files beside this module
 * (`proto/`): the gRPC method paths, the health messages, and the event messages that tests and
 * tools decode with. Events on the hot path go through the hand-written codec (`encode.ts`,
 * `decode.ts`), which writes and reads these same messages without an intermediate object tree.
 */
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type protobuf from 'protobufjs';
import { lazyModule } from '../../../lib/lazy-module.js';

const protobufjs = lazyModule<typeof protobuf>('protobufjs');

/**
 * `proto/` beside this module (`npm run build` copies it next to the compiled code); from a build
 * by `tsc` alone in a checkout, the one in the source tree.
 */
function protoDir(): string {
  const here = join(dirname(fileURLToPath(import.meta.url)), 'proto');
  if (existsSync(here)) return here;
  const source = here.replace(`${sep}dist${sep}`, sep);
  if (existsSync(source)) return source;
  throw new Error(`the vector protocol definitions are missing (looked in ${here} and ${source})`);
}

/** The loaded types and method paths. */
export interface VectorProto {
  readonly root: protobuf.Root;
  readonly pushEventsRequest: protobuf.Type;
  readonly eventWrapper: protobuf.Type;
  readonly healthCheckResponse: protobuf.Type;
  readonly grpcHealthRequest: protobuf.Type;
  readonly grpcHealthResponse: protobuf.Type;
  /** `/vector.Vector/PushEvents`. */
  readonly pushEventsPath: string;
  /** `/vector.Vector/HealthCheck`. */
  readonly healthCheckPath: string;
  /** `/grpc.health.v1.Health/Check` and `/Watch`. */
  readonly grpcHealthCheckPath: string;
  readonly grpcHealthWatchPath: string;
}

let loaded: VectorProto | undefined;

const methodPath = (service: protobuf.Service, name: string): string => {
  if (!service.methods[name]) throw new Error(`${service.fullName} has no method ${name}`);
  return `/${service.fullName.slice(1)}/${name}`;
};

/** Loads the definitions once per process (synchronously: at build time, never per request). */
export function vectorProto(): VectorProto {
  if (loaded) return loaded;
  const dir = protoDir();
  const root = new (protobufjs().Root)();
  // imports name files relative to proto/; google/protobuf/* are protobufjs' bundled definitions
  root.resolvePath = (_origin, target) => (target.startsWith('google/') || target.startsWith(sep) ? target : join(dir, target));
  root.loadSync(['vector.proto', 'health.proto'], { keepCase: true });
  root.resolveAll();
  const vector = root.lookupService('vector.Vector');
  const health = root.lookupService('grpc.health.v1.Health');
  loaded = {
    root,
    pushEventsRequest: root.lookupType('vector.PushEventsRequest'),
    eventWrapper: root.lookupType('event.EventWrapper'),
    healthCheckResponse: root.lookupType('vector.HealthCheckResponse'),
    grpcHealthRequest: root.lookupType('grpc.health.v1.HealthCheckRequest'),
    grpcHealthResponse: root.lookupType('grpc.health.v1.HealthCheckResponse'),
    pushEventsPath: methodPath(vector, 'PushEvents'),
    healthCheckPath: methodPath(vector, 'HealthCheck'),
    grpcHealthCheckPath: methodPath(health, 'Check'),
    grpcHealthWatchPath: methodPath(health, 'Watch'),
  };
  return loaded;
}
