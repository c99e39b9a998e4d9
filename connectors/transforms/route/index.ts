/** `route`: sends each event to every named output whose condition it matches. */
import * as v from 'valibot';
import { Observable, type OperatorFunction } from 'rxjs';
import { defineTransform } from '../../../lib/component.js';
import { type Event, type EventBatch, type RoutedBatch, settleAll } from '../../../lib/event.js';
import { compileCondition, conditionSchema } from '../../../operators/conditions/index.js';
import { inputsSchema } from '../../../lib/config/options/envelope.js';

export const RouteConfig = v.strictObject({
  type: v.literal('route'),
  inputs: inputsSchema,
  route: v.pipe(
    v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/, 'route names may hold letters, digits, "_" and "-"'), v.check((n) => n !== '_unmatched' && n !== '_default', 'route names "_unmatched" and "_default" are reserved')), conditionSchema),
    v.check((r) => Object.keys(r).length > 0, 'must define at least one route'),
  ),
  reroute_unmatched: v.optional(v.boolean(), true),
});
export type RouteConfig = v.InferOutput<typeof RouteConfig>;

export const routeTransform = defineTransform({
  type: 'route',
  summary: 'Route events to named outputs by condition (`id.name`, `id._unmatched`).',
  schema: RouteConfig,
  input: 'any',
  outputs: (c) => [...Object.keys(c.route).map((name) => ({ name, type: 'any' as const })), ...(c.reroute_unmatched ? [{ name: '_unmatched', type: 'any' as const }] : [])],
  build: (config, ctx): OperatorFunction<EventBatch, RoutedBatch> => {
    const routes = Object.entries(config.route).map(([name, c]) => ({ name, test: compileCondition(c, `route.${name}`, ctx.globals.timezone) }));
    const discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'true' });
    return (source) =>
      new Observable<RoutedBatch>((subscriber) =>
        source.subscribe({
          next(batch) {
            const outs: Event[][] = routes.map(() => []);
            const unmatched: Event[] = [];
            for (const e of batch) {
              let first = -1;
              for (let r = 0; r < routes.length; r++) {
                if (!routes[r]!.test(e)) continue;
                // the first match takes the event itself; later matches take copies
                outs[r]!.push(first < 0 ? e : e.clone());
                if (first < 0) first = r;
              }
              if (first < 0) unmatched.push(e);
            }
            for (let r = 0; r < routes.length; r++) if (outs[r]!.length) subscriber.next({ output: routes[r]!.name, events: outs[r]! });
            if (unmatched.length) {
              if (config.reroute_unmatched) subscriber.next({ output: '_unmatched', events: unmatched });
              else {
                discarded.add(unmatched.length);
                settleAll(unmatched, 'delivered');
              }
            }
          },
          error: (e) => subscriber.error(e),
          complete: () => subscriber.complete(),
        }),
      );
  },
});
