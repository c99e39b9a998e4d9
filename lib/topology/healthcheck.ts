/** Sink health checks at boot: each enabled check runs concurrently; failures are logged. */
import { componentContext } from '../component-context.js';
import type { Config } from '../config/load.js';
import type { LogRoot } from '../log.js';
import type { MetricsRegistry } from '../telemetry/registry.js';

/** A sink whose health check failed, and the reason it gave. */
export interface HealthcheckFailure {
  readonly id: string;
  readonly error: string;
}

/** Resolves with the sinks whose check failed, in the order their checks failed. */
export async function runHealthchecks(config: Config, registry: MetricsRegistry, logRoot: LogRoot): Promise<HealthcheckFailure[]> {
  if (!config.globals.healthchecks.enabled) return [];
  const failed: HealthcheckFailure[] = [];
  await Promise.all(
    [...config.components.values()].map(async (c) => {
      if (c.kind !== 'sink' || !c.def.healthcheck || !c.options.healthcheck.enabled) return;
      const ctx = componentContext({ id: c.id, kind: 'sink', type: c.def.type, registry, log: logRoot, globals: config.globals });
      try {
        await c.def.healthcheck(c.options, ctx);
        ctx.log.info('Healthcheck passed.');
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        failed.push({ id: c.id, error });
        ctx.log.error('Healthcheck failed.', { error });
      }
    }),
  );
  return failed;
}
