/**
 * Per-component sums of the internal metrics the API reports (as Vector's API sums them): every
 * series of one name tagged with the component's id adds up; a metric no series has is absent.
 */
import type { MetricsRegistry } from '../telemetry/registry.js';

/** Metric names the API sums per component (the same four Vector sums). */
export const RECEIVED_EVENTS = 'component_received_events_total';
export const SENT_EVENTS = 'component_sent_events_total';
export const RECEIVED_BYTES = 'component_received_bytes_total';
export const SENT_BYTES = 'component_sent_bytes_total';
export const ALLOCATED_BYTES = 'component_allocated_bytes';

/** One component's sums at one instant; `byOutput` holds sent events per `output` tag. */
export interface ComponentSums {
  readonly values: Map<string, number>;
  readonly byOutput: Map<string, number>;
  /** Sum of every metric whose name ends in `_errors_total`; undefined when none exists. */
  errors: number | undefined;
}

/** The sums of every component at one instant. */
export interface MetricsSample {
  readonly at: Date;
  readonly components: Map<string, ComponentSums>;
}

const isErrors = (name: string) => name.endsWith('_errors_total');

/** Walks the registry once. */
export function sampleMetrics(registry: MetricsRegistry, at: Date): MetricsSample {
  const components = new Map<string, ComponentSums>();
  for (const s of registry.all()) {
    const id = s.tags.component_id;
    if (id === undefined) continue;
    let c = components.get(id);
    if (!c) components.set(id, (c = { values: new Map(), byOutput: new Map(), errors: undefined }));
    c.values.set(s.name, (c.values.get(s.name) ?? 0) + s.value);
    if (s.name === SENT_EVENTS && s.tags.output !== undefined) c.byOutput.set(s.tags.output, (c.byOutput.get(s.tags.output) ?? 0) + s.value);
    if (isErrors(s.name)) c.errors = (c.errors ?? 0) + s.value;
  }
  return { at, components };
}

/** One metric of one component, undefined when it has no such series. */
export function componentMetric(registry: MetricsRegistry, id: string, name: string, output?: string): number | undefined {
  let total: number | undefined;
  for (const s of registry.all()) {
    if (s.name !== name || s.tags.component_id !== id) continue;
    if (output !== undefined && s.tags.output !== output) continue;
    total = (total ?? 0) + s.value;
  }
  return total;
}
