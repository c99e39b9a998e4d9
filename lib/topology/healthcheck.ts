/** Sink health checks at boot (spec 01 §7.2): each enabled check runs concurrently; failures are logged. */
import { asyncScheduler } from 'rxjs';
import type { SinkDef } from '../component.js';
import type { Config } from '../config/load.js';
import type { LogRoot } from '../log.js';
import { ComponentTelemetry, type MetricsRegistry } from '../telemetry/registry.js';

/** Resolves with the ids of the sinks whose check failed. */
export async function runHealthchecks(config: Config, registry: MetricsRegistry, logRoot: LogRoot): Promise<string[]> {
  if (!config.globals.healthchecks.enabled) return [];
  const failed: string[] = [];
  await Promise.all(
    [...config.components.values()].map(async (c) => {
      if (c.kind !== 'sink') return;
      const def = c.def as SinkDef;
      const hc = c.options.healthcheck as { enabled?: boolean } | undefined;
      if (!def.healthcheck || hc?.enabled === false) return;
      const log = logRoot.logger({ component_id: c.id, component_kind: 'sink', component_type: def.type });
      const telemetry = new ComponentTelemetry(registry, c.id, 'sink', def.type);
      try {
        await def.healthcheck(c.options, { id: c.id, type: def.type, telemetry, log, globals: config.globals, scheduler: asyncScheduler, registry });
        log.info('Healthcheck passed.');
      } catch (err) {
        failed.push(c.id);
        log.error('Healthcheck failed.', { error: (err as Error).message });
      }
    }),
  );
  return failed;
}
