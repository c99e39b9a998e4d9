/**
 * The final account printed at exit, derived in one place from the counters the components
 * record: what each component received, sent and discarded; the events lost (accepted and not
 * delivered, whatever the reason), each reason on its own line; the events dropped on purpose
 * (filter, route, throttle, a remap abort with drop_on_abort); and the frames decoders discarded.
 */
import type { ComponentKind } from '../component.js';
import type { MetricsRegistry } from './registry.js';

/** What the account needs to know of each running component. */
export interface AccountedComponent {
  readonly kind: ComponentKind;
  readonly type: string;
  /** One output event may stand for several input events (reduce): fewer out is no loss. */
  readonly merges?: boolean;
  /** A sink's buffer type: what a disk buffer holds at exit is delivered after the next start. */
  readonly buffer?: string;
}

/** How the run ended: it decides the reason given for events still waiting in sink buffers. */
export type RunEnd = 'finished' | 'drain_limit' | 'forced';

/** One component's row of the table. */
export interface ComponentTotals {
  readonly id: string;
  readonly kind: ComponentKind;
  readonly type: string;
  readonly received: number;
  readonly sent: number;
  /** Discarded by the component and, for a sink, dropped by its full buffer. */
  readonly discarded: number;
  readonly buffered: number;
}

/** A number of events (or frames) with the reason and the component it happened in. */
export interface AccountLine {
  readonly count: number;
  readonly reason: string;
  readonly id: string;
  readonly kind: ComponentKind;
  readonly type: string;
  /** Extra words after the component (error types recorded there). */
  readonly detail?: string;
}

/** The whole account. */
export interface FinalAccount {
  readonly rows: readonly ComponentTotals[];
  readonly lost: number;
  /** The lost events by reason and component; their counts add up to `lost`. */
  readonly losses: readonly AccountLine[];
  /** Events a component dropped by design (`component_discarded_events_total{intentional="true"}`). */
  readonly dropped: readonly AccountLine[];
  /** Frames a source's decoder discarded (too long, cut off, malformed): never events, so not in `lost`. */
  readonly frames: readonly AccountLine[];
  /** Events left in disk buffers, replayed at the next start. */
  readonly kept: readonly AccountLine[];
}

const STILL_BUFFERED: Record<RunEnd, string> = {
  forced: 'shutdown forced with events still buffered',
  drain_limit: 'graceful shutdown limit reached with events still buffered',
  finished: 'left undelivered in the sink at exit',
};

/** Error types that say why a sink rejected events, for the loss line (decoder errors belong to sources). */
function errorTypes(registry: MetricsRegistry, id: string): string[] {
  const types = new Set<string>();
  for (const s of registry.all()) {
    if (s.name !== 'component_errors_total' || s.tags.component_id !== id || s.value === 0) continue;
    const t = s.tags.error_type;
    if (t && t !== 'sink_failed') types.add(t);
  }
  return [...types].sort();
}

/**
 * Computes the account from the registry. Each figure is a difference of counters the hot path
 * already keeps, so the account costs nothing while running; negative remainders (a disk buffer
 * replaying events of an earlier run, a route copying one event to two outputs) count as zero.
 */
export function finalAccount(registry: MetricsRegistry, components: ReadonlyMap<string, AccountedComponent>, end: RunEnd): FinalAccount {
  const rows: ComponentTotals[] = [];
  const losses: AccountLine[] = [];
  const dropped: AccountLine[] = [];
  const frames: AccountLine[] = [];
  const kept: AccountLine[] = [];
  for (const [id, c] of components) {
    const m = { component_id: id };
    const at = { id, kind: c.kind, type: c.type };
    const received = registry.sum('component_received_events_total', m);
    const sent = registry.sum('component_sent_events_total', m);
    const discarded = registry.sum('component_discarded_events_total', m);
    const onPurpose = registry.sum('component_discarded_events_total', { ...m, intentional: 'true' });
    const failed = discarded - onPurpose;
    if (onPurpose > 0) dropped.push({ ...at, count: onPurpose, reason: 'dropped on purpose' });
    const bufferDropped = c.kind === 'sink' ? registry.sum('buffer_discarded_events_total', m) : 0;
    const buffered = c.kind === 'sink' ? registry.sum('buffer_events', m) : 0;
    rows.push({ ...at, received, sent, discarded: discarded + bufferDropped, buffered });
    if (c.kind === 'source') {
      if (failed > 0) losses.push({ ...at, count: failed, reason: 'discarded by the source' });
      const framing = registry.sum('component_errors_total', { ...m, error_code: 'decoder_frame' });
      const decoding = registry.sum('component_errors_total', { ...m, error_code: 'decoder_deserialize' });
      if (framing > 0) frames.push({ ...at, count: framing, reason: 'too long or cut off' });
      if (decoding > 0) frames.push({ ...at, count: decoding, reason: 'malformed' });
    } else if (c.kind === 'transform') {
      if (failed > 0) losses.push({ ...at, count: failed, reason: 'discarded after a processing error' });
      const missing = c.merges ? 0 : received - sent - discarded;
      if (missing > 0) losses.push({ ...at, count: missing, reason: 'lost inside the transform (it failed)' });
    } else {
      if (failed > 0) {
        const types = errorTypes(registry, id);
        losses.push({ ...at, count: failed, reason: 'rejected by the sink', ...(types.length ? { detail: types.join(', ') } : {}) });
      }
      if (bufferDropped > 0) losses.push({ ...at, count: bufferDropped, reason: 'dropped by a full buffer (when_full = drop_newest)' });
      // accepted into the buffer and neither sent nor discarded: still buffered, or in flight
      const waiting = Math.max(0, registry.sum('buffer_received_events_total', m) - sent - discarded, buffered);
      if (waiting > 0) {
        if (c.buffer !== undefined && c.buffer !== 'memory') kept.push({ ...at, count: waiting, reason: 'kept in the disk buffer' });
        else {
          const sinkFailed = registry.sum('component_errors_total', { ...m, error_type: 'sink_failed' }) > 0;
          losses.push({ ...at, count: waiting, reason: end === 'finished' && sinkFailed ? 'left undelivered when the sink failed' : STILL_BUFFERED[end] });
        }
      }
    }
  }
  return { rows, lost: losses.reduce((n, l) => n + l.count, 0), losses, dropped, frames, kept };
}

const where = (l: AccountLine) => `${l.kind} "${l.id}" (${l.type}${l.detail ? `; ${l.detail}` : ''})`;
const byComponent = (lines: readonly AccountLine[]) => lines.map((l) => `${l.type} "${l.id}": ${l.count}`).join(', ');
const total = (lines: readonly AccountLine[]) => lines.reduce((n, l) => n + l.count, 0);

/**
 * The account as log text: the table, `N events lost` with one indented line per reason, then
 * (only when not zero) the events dropped on purpose, the frames decoders discarded and the
 * events kept in disk buffers, each on one line.
 */
export function formatAccount(a: FinalAccount): string {
  const w = Math.max(2, ...a.rows.map((r) => r.id.length));
  const lines = ['Final internal metrics:'];
  for (const r of a.rows)
    lines.push(`  ${r.kind.padEnd(9)} ${r.id.padEnd(w)}  received=${r.received} sent=${r.sent} discarded=${r.discarded}${r.kind === 'sink' ? ` buffered=${r.buffered}` : ''}`);
  lines.push(`${a.lost} events lost`);
  for (const l of a.losses) lines.push(`  ${l.count} ${l.reason}: ${where(l)}`);
  if (a.dropped.length) lines.push(`${total(a.dropped)} events dropped on purpose (${byComponent(a.dropped)})`);
  if (a.frames.length) {
    // one entry per source: `socket "in": 2 too long or cut off, 1 malformed`
    const perSource = new Map<string, string[]>();
    for (const l of a.frames) {
      const key = `${l.type} "${l.id}"`;
      perSource.set(key, [...(perSource.get(key) ?? []), `${l.count} ${l.reason}`]);
    }
    lines.push(`${total(a.frames)} frames discarded by decoders (${[...perSource].map(([k, v]) => `${k}: ${v.join(', ')}`).join('; ')})`);
  }
  if (a.kept.length) lines.push(`${total(a.kept)} events kept in disk buffers for the next start (${byComponent(a.kept)})`);
  return lines.join('\n');
}
