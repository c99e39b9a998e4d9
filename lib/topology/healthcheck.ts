/** Sink health checks at boot: each enabled check runs concurrently; failures are logged. */
import { componentContext } from '../component-context.js';
import type { Config } from '../config/load.js';
import type { LogRoot } from '../log.js';
import type { MetricsRegistry } from '../telemetry/registry.js';

/** Resolves with the ids of the sinks whose check failed. */
export async function runHealthchecks(config: Config, registry: MetricsRegistry, logRoot: LogRoot): Promise<string[]> {
  if (!config.globals.healthchecks.enabled) return [];
  const failed: string[] = [];
  await Promise.all(
    [...config.components.values()].map(async (c) => {
      if (c.kind !== 'sink' || !c.def.healthcheck || !c.options.healthcheck.enabled) return;
      const ctx = componentContext({ id: c.id, kind: 'sink', type: c.def.type, registry, log: logRoot, globals: config.globals });
      try {
        await c.def.healthcheck(c.options, ctx);
        ctx.log.info('Healthcheck passed.');
      } catch (err) {
        failed.push(c.id);
        ctx.log.error('Healthcheck failed.', { error: (err as Error).message });
      }
    }),
  );
  return failed;
}
