/** A SinkContext for building one sink outside a topology. */
import { type SchedulerLike, asyncScheduler } from 'rxjs';
import type { SinkContext } from '../../lib/component.js';
import { type GlobalOptions, defaultGlobals } from '../../lib/config/global.js';
import { GateController } from '../../lib/gate.js';
import { silentLogger } from '../../lib/log.js';
import { ComponentTelemetry, MetricsRegistry } from '../../lib/telemetry/registry.js';

export interface TestSinkContext extends SinkContext {
  /** Value of a metric of this component (summed over tag sets matching `tags`). */
  metric(name: string, tags?: Record<string, string>): number;
}

export function testSinkContext(type: string, opts: { scheduler?: SchedulerLike; globals?: Partial<GlobalOptions>; id?: string } = {}): TestSinkContext {
  const registry = new MetricsRegistry({});
  const id = opts.id ?? 'out';
  const telemetry = new ComponentTelemetry(registry, id, 'sink', type);
  return {
    id,
    type,
    telemetry,
    log: silentLogger,
    globals: { ...defaultGlobals(), ...opts.globals },
    scheduler: opts.scheduler ?? asyncScheduler,
    registry,
    acknowledgements: true,
    demand: new GateController(true),
    metric: (name, tags = {}) => registry.sum(name, { component_id: id, ...tags }),
  };
}
