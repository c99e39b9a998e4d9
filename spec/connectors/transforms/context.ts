/** A component context for transform tests: a fresh registry without global tags, silent log. */
import type { SchedulerLike } from 'rxjs';
import * as v from 'valibot';
import type { ComponentContext, TransformDef } from '../../../lib/component.js';
import { componentContext } from '../../../lib/component-context.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';

export interface TestContext extends ComponentContext {
  readonly registry: MetricsRegistry;
}

export function transformContext(type: string, opts: { scheduler?: SchedulerLike; timezone?: string; id?: string } = {}): TestContext {
  const registry = new MetricsRegistry({});
  return { ...componentContext({ id: opts.id, kind: 'transform', type, registry, globals: { timezone: opts.timezone ?? 'UTC' }, scheduler: opts.scheduler }), registry };
}

/** Parses options with the component's schema (type and inputs filled in). */
export function parseConfig<D extends TransformDef>(def: D, options: Record<string, unknown>): v.InferOutput<D['schema']> {
  return v.parse(def.schema, { type: def.type, inputs: ['in'], ...options }) as v.InferOutput<D['schema']>;
}

/** Issues of a failing parse, as `path: message` lines. */
export function configIssues(def: TransformDef, options: Record<string, unknown>): string[] {
  const r = v.safeParse(def.schema, { type: def.type, inputs: ['in'], ...options });
  if (r.success) return [];
  return r.issues.map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`);
}
