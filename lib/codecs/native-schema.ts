/**
 * The wire schema of the `native` codec: Vector's event protobuf (package `event`), with the
 * message names and field numbers Vector's peers use. Kept as proto text inside a module (tsc
 * copies only .ts into dist/) and parsed once at load. Field names keep their snake_case
 * (`keepCase`), so the decoded messages read like the schema.
 *
 * Only what weir reads or writes is spelled out; `Trace` and `Sketch` are declared empty so that
 * their presence is recognised (and rejected) instead of being skipped as unknown fields.
 */
import { createRequire } from 'node:module';
import type protobuf from 'protobufjs';

// protobufjs (about 10 MiB) loads with the first native frame, not with every process and
// pipeline worker that imports the codecs
const require = createRequire(import.meta.url);

const TIMESTAMP_PROTO = `
syntax = "proto3";
package google.protobuf;
message Timestamp {
  int64 seconds = 1;
  int32 nanos = 2;
}
`;

const EVENT_PROTO = `
syntax = "proto3";
package event;

message EventArray {
  oneof events {
    LogArray logs = 1;
    MetricArray metrics = 2;
    TraceArray traces = 3;
  }
}
message LogArray { repeated Log logs = 1; }
message MetricArray { repeated Metric metrics = 1; }
message TraceArray { repeated Trace traces = 1; }

message Log {
  map<string, Value> fields = 1;
  Value value = 2;
  Value metadata = 3;
  Metadata metadata_full = 4;
}
message Trace {}

message Metadata {
  Value value = 1;
  optional string source_id = 3;
  optional string source_type = 4;
}

message ValueMap { map<string, Value> fields = 1; }
message ValueArray { repeated Value items = 1; }
enum ValueNull { NULL_VALUE = 0; }
message Value {
  oneof kind {
    bytes raw_bytes = 1;
    google.protobuf.Timestamp timestamp = 2;
    int64 integer = 4;
    double float = 5;
    bool boolean = 6;
    ValueMap map = 7;
    ValueArray array = 8;
    ValueNull null = 9;
  }
}

message Metric {
  string name = 1;
  google.protobuf.Timestamp timestamp = 2;
  map<string, string> tags_v1 = 3;
  map<string, TagValues> tags_v2 = 20;
  enum Kind {
    Incremental = 0;
    Absolute = 1;
  }
  Kind kind = 4;
  oneof value {
    Counter counter = 5;
    Gauge gauge = 6;
    Set set = 7;
    Distribution1 distribution1 = 8;
    AggregatedHistogram1 aggregated_histogram1 = 9;
    AggregatedSummary1 aggregated_summary1 = 10;
    Distribution2 distribution2 = 12;
    AggregatedHistogram2 aggregated_histogram2 = 13;
    AggregatedSummary2 aggregated_summary2 = 14;
    Sketch sketch = 15;
    AggregatedHistogram3 aggregated_histogram3 = 16;
    AggregatedSummary3 aggregated_summary3 = 17;
  }
  string namespace = 11;
  uint32 interval_ms = 18;
  Value metadata = 19;
  Metadata metadata_full = 21;
}
message TagValues { repeated TagValue values = 1; }
message TagValue { optional string value = 1; }

message Counter { double value = 1; }
message Gauge { double value = 1; }
message Set { repeated string values = 1; }

enum StatisticKind {
  Histogram = 0;
  Summary = 1;
}
message Distribution1 {
  repeated double values = 1;
  repeated uint32 sample_rates = 2;
  StatisticKind statistic = 3;
}
message Distribution2 {
  repeated DistributionSample samples = 1;
  StatisticKind statistic = 2;
}
message DistributionSample {
  double value = 1;
  uint32 rate = 2;
}

message AggregatedHistogram1 {
  repeated double buckets = 1;
  repeated uint32 counts = 2;
  uint32 count = 3;
  double sum = 4;
}
message AggregatedHistogram2 {
  repeated HistogramBucket buckets = 1;
  uint32 count = 2;
  double sum = 3;
}
message AggregatedHistogram3 {
  repeated HistogramBucket3 buckets = 1;
  uint64 count = 2;
  double sum = 3;
}
message HistogramBucket {
  double upper_limit = 1;
  uint32 count = 2;
}
message HistogramBucket3 {
  double upper_limit = 1;
  uint64 count = 2;
}

message AggregatedSummary1 {
  repeated double quantiles = 1;
  repeated double values = 2;
  uint32 count = 3;
  double sum = 4;
}
message AggregatedSummary2 {
  repeated SummaryQuantile quantiles = 1;
  uint32 count = 2;
  double sum = 3;
}
message AggregatedSummary3 {
  repeated SummaryQuantile quantiles = 1;
  uint64 count = 2;
  double sum = 3;
}
message SummaryQuantile {
  double quantile = 1;
  double value = 2;
}

message Sketch {}
`;

function load(): protobuf.Root {
  const pb = require('protobufjs') as typeof protobuf;
  const root = new pb.Root();
  pb.parse(TIMESTAMP_PROTO, root, { keepCase: true });
  pb.parse(EVENT_PROTO, root, { keepCase: true });
  root.resolveAll();
  return root;
}

let eventArray: protobuf.Type | undefined;

/** `event.EventArray`: one frame of the `native` codec (Vector writes one per event). */
export function eventArrayType(): protobuf.Type {
  return (eventArray ??= load().lookupType('event.EventArray'));
}
