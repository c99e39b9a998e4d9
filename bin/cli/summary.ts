/**
 * The final accounting printed at exit: per component received / sent / discarded, and the
 * events lost (accepted by a sink's buffer but neither sent nor deliberately discarded).
 */
import type { MetricsRegistry } from '../../lib/telemetry/registry.js';
import type { ComponentKind } from '../../lib/component.js';

export interface ComponentTotals {
  id: string;
  kind: ComponentKind;
  received: number;
  sent: number;
  discarded: number;
  buffered: number;
  lost: number;
}

export function componentTotals(registry: MetricsRegistry, components: ReadonlyMap<string, { kind: ComponentKind; merges?: boolean }>): ComponentTotals[] {
  const rows: ComponentTotals[] = [];
  for (const [id, { kind, merges }] of components) {
    const m = { component_id: id };
    const received = registry.sum('component_received_events_total', m);
    const sent = registry.sum('component_sent_events_total', m);
    const discarded = registry.sum('component_discarded_events_total', m);
    const bufferDropped = registry.sum('buffer_discarded_events_total', m);
    const buffered = registry.sum('buffer_events', m);
    let lost = 0;
    if (kind === 'sink') lost = registry.sum('buffer_received_events_total', m) - sent - discarded;
    // a merging transform (reduce) sends fewer events than it received without losing any
    else if (kind === 'transform' && !merges) lost = Math.max(0, received - sent - discarded);
    rows.push({ id, kind, received, sent, discarded: discarded + bufferDropped, buffered, lost: Math.max(0, lost) });
  }
  return rows;
}

/** Multi-line report for the log. */
export function formatSummary(rows: ComponentTotals[]): string {
  const w = Math.max(2, ...rows.map((r) => r.id.length));
  const lines = rows.map(
    (r) => `  ${r.kind.padEnd(9)} ${r.id.padEnd(w)}  received=${r.received} sent=${r.sent} discarded=${r.discarded}${r.kind === 'sink' ? ` buffered=${r.buffered}` : ''}`,
  );
  const lost = rows.reduce((n, r) => n + r.lost, 0);
  return `Final internal metrics:\n${lines.join('\n')}\n${lost} events lost`;
}
