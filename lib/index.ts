/** The public API of weir as a library. */
export { sources, transforms, sinks, type ComposeContext } from './api.js';
export { Float, Timestamp, type Value, type ObjectValue, fromJSON, toJSON } from './value.js';
export { parsePath, getPath, setPath, removePath, formatPath } from './path.js';
export { LogEvent, MetricEvent, EventMetadata, BatchNotifier, logEvent, type Event, type EventBatch, type Delivery, type RoutedBatch } from './event.js';
export { GateController, AllGate, pullWhile, gatedScheduler, whenOpen, type Gate } from './gate.js';
export { MetricsRegistry } from './telemetry/registry.js';
export { ConfigError } from './errors.js';
export { loadConfig, configFromObject } from './config/load.js';
export { Topology } from './topology/topology.js';
export { LogRoot } from './log.js';
export { catalog, components } from '../connectors/index.js';
export { tokenize } from '../operators/transforms/tokenizer/index.js';
export { reduce } from '../operators/transforms/reduce/index.js';
export { throttle } from '../operators/transforms/throttle/index.js';
