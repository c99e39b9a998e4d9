/** A SourceContext for building one source outside a topology: a gate the test drives, captured log records. */
import { type SchedulerLike, Subject } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import { componentContext, sourceContext } from '../../../lib/component-context.js';
import { GateController } from '../../../lib/gate.js';
import { LogRoot } from '../../../lib/log.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';

export interface TestSourceContext extends SourceContext {
  readonly gate: GateController;
  readonly shutdown: Subject<void>;
  /** Log lines written so far. */
  readonly lines: string[];
  metric(name: string, tags?: Record<string, string>): number;
  /** The address from the "Listening." record, once bound. */
  listeningAddress(): string | undefined;
}

export function testSourceContext(type: string, id = 'in', scheduler?: SchedulerLike): TestSourceContext {
  const registry = new MetricsRegistry({});
  const lines: string[] = [];
  // no rate-limit window, so every warning is visible to the test
  const root = new LogRoot('debug', { write: (l) => lines.push(l) }, 0);
  const gate = new GateController(true);
  const shutdown = new Subject<void>();
  const base = componentContext({ id, kind: 'source', type, registry, log: root.logger({ component_id: id }), globals: { timezone: 'UTC' }, scheduler });
  return {
    ...sourceContext(base, { out: gate, shutdown$: shutdown.asObservable() }),
    gate,
    shutdown,
    lines,
    metric: (name, tags = {}) => registry.sum(name, { component_id: id, ...tags }),
    listeningAddress: () => {
      for (const l of lines) {
        const m = / Listening\. .*address=("[^"]+"|\S+)/.exec(l);
        if (m) return m[1]!.replace(/^"|"$/g, '');
      }
      return undefined;
    },
  };
}
