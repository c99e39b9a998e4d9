/**
 * The remote-write wire format (protocol 1.0): Prometheus's `prompb.WriteRequest`, written here
 * from its field numbers and types (`prompb/remote.proto`, `prompb/types.proto`). Native
 * histograms (`TimeSeries.histograms`) and exemplars are declared so that they decode, and are
 * not used. The body is a snappy block of the protobuf message.
 */
import type protobufNs from 'protobufjs';
import { lazyModule } from '../../../lib/lazy-module.js';

const protobuf = lazyModule<typeof protobufNs>('protobufjs');

const REMOTE_WRITE_PROTO = `
syntax = "proto3";
package prometheus;
message WriteRequest { repeated TimeSeries timeseries = 1; reserved 2; repeated MetricMetadata metadata = 3; }
message MetricMetadata {
  enum MetricType { UNKNOWN = 0; COUNTER = 1; GAUGE = 2; HISTOGRAM = 3; GAUGEHISTOGRAM = 4; SUMMARY = 5; INFO = 6; STATESET = 7; }
  MetricType type = 1;
  string metric_family_name = 2;
  string help = 4;
  string unit = 5;
}
message Sample { double value = 1; int64 timestamp = 2; }
message Exemplar { repeated Label labels = 1; double value = 2; int64 timestamp = 3; }
message Histogram { uint64 count_int = 1; double sum = 3; int64 timestamp = 15; }
message TimeSeries { repeated Label labels = 1; repeated Sample samples = 2; repeated Exemplar exemplars = 3; repeated Histogram histograms = 4; }
message Label { string name = 1; string value = 2; }
`;

/** `MetricMetadata.MetricType` numbers. */
export const METRIC_TYPE = { unknown: 0, counter: 1, gauge: 2, histogram: 3, gaugehistogram: 4, summary: 5, info: 6, stateset: 7 } as const;

export interface WireLabel {
  name: string;
  value: string;
}
export interface WireSample {
  value: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
}
export interface WireTimeSeries {
  labels: WireLabel[];
  samples: WireSample[];
}
export interface WireMetadata {
  type: number;
  metric_family_name: string;
  help: string;
  unit: string;
}
export interface WireWriteRequest {
  timeseries: WireTimeSeries[];
  metadata: WireMetadata[];
}

let writeRequest: protobufNs.Type | undefined;
const type = () => (writeRequest ??= protobuf().parse(REMOTE_WRITE_PROTO, { keepCase: true }).root.lookupType('prometheus.WriteRequest'));

/** Encodes a request (uncompressed protobuf). */
export function encodeWriteRequest(req: WireWriteRequest): Uint8Array {
  return type().encode(req).finish();
}

/** Decodes a request; throws on bytes that are not one. Timestamps become numbers (ms fit a double exactly). */
export function decodeWriteRequest(bytes: Uint8Array): WireWriteRequest {
  const t = type();
  const obj = t.toObject(t.decode(bytes), { longs: Number, enums: Number, defaults: true, arrays: true }) as WireWriteRequest;
  return obj;
}
