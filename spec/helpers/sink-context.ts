/** A SinkContext for building one sink outside a topology. */
import type { SchedulerLike } from 'rxjs';
import type { SinkContext } from '../../lib/component.js';
import { componentContext, sinkContext } from '../../lib/component-context.js';
import type { GlobalOptions } from '../../lib/config/global.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';

export interface TestSinkContext extends SinkContext {
  /** Value of a metric of this component (summed over tag sets matching `tags`). */
  metric(name: string, tags?: Record<string, string>): number;
}

export function testSinkContext(type: string, opts: { scheduler?: SchedulerLike; globals?: Partial<GlobalOptions>; id?: string } = {}): TestSinkContext {
  const registry = new MetricsRegistry({});
  const id = opts.id ?? 'out';
  const base = componentContext({ id, kind: 'sink', type, registry, globals: opts.globals, scheduler: opts.scheduler });
  return {
    ...sinkContext(base, { acknowledgements: true }),
    metric: (name, tags = {}) => registry.sum(name, { component_id: id, ...tags }),
  };
}
