/** The public API of weir as a library: the engine, the catalog as functions, the operators and the remap language. */
export { sources, transforms, sinks, type ComposeContext } from './connectors/compose.js';
export { Float, Timestamp, type Value, type ObjectValue, fromJSON, toJSON } from './lib/value.js';
export { parsePath, getPath, setPath, removePath, formatPath } from './lib/path.js';
export { LogEvent, MetricEvent, EventMetadata, BatchNotifier, logEvent, type Event, type EventBatch, type Delivery, type RoutedBatch } from './lib/event.js';
export { GateController, AllGate, pullWhile, whenOpen, type Gate } from './lib/gate.js';
export { MetricsRegistry } from './lib/telemetry/registry.js';
export { ConfigError } from './lib/errors.js';
export { loadConfig, configFromObject } from './lib/config/load.js';
export { Topology } from './lib/topology/topology.js';
export { LogRoot } from './lib/log.js';
export { catalog, components } from './connectors/index.js';
export { tokenize } from './operators/transforms/tokenizer/index.js';
export { reduce } from './operators/transforms/reduce/index.js';
export { throttle } from './operators/transforms/throttle/index.js';
export { compile, CompileError, Program, type CompileOptions, type RunResult } from './remap/index.js';
