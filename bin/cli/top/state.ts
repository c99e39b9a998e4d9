/**
 * The model of `weir top`: one row per component (and per named output), updated from the API's
 * totals and throughput subscriptions. Pure functions, so the view and the tests share them.
 */

export interface Rate {
  total: number;
  /** Per second: the API reports a delta per interval, divided here by the interval. */
  perSec: number;
}

export interface Row {
  id: string;
  /** '' for the component itself, else a named output's id. */
  output: string;
  kind: 'source' | 'transform' | 'sink';
  type: string;
  eventsIn: Rate;
  bytesIn: Rate;
  eventsOut: Rate;
  bytesOut: Rate;
  errors: number;
}

export interface TopState {
  rows: Map<string, Row>;
  uptimeSecs: number | undefined;
  connected: boolean;
}

const zero = (): Rate => ({ total: 0, perSec: 0 });

/** The row key of a component or of one of its named outputs. */
const key = (id: string, output = '') => (output ? `${id}\u0000${output}` : id);

export function emptyState(): TopState {
  return { rows: new Map(), uptimeSecs: undefined, connected: false };
}

interface ComponentNode {
  __typename: 'Source' | 'Transform' | 'Sink';
  componentId: string;
  componentType: string;
  outputs?: { outputId: string; sentEventsTotal: { sentEventsTotal: number } | null }[];
  metrics?: Record<string, { [k: string]: number } | null | string>;
}

const metricOf = (m: ComponentNode['metrics'], name: string): number => {
  const x = m?.[name];
  return x && typeof x === 'object' ? (x[name] ?? 0) : 0;
};

/** Adds a component (from the components query or `componentAdded`) with what its metrics say so far. */
export function addComponent(s: TopState, n: ComponentNode): void {
  const kind = n.__typename.toLowerCase() as Row['kind'];
  const row: Row = {
    id: n.componentId,
    output: '',
    kind,
    type: n.componentType,
    eventsIn: { total: metricOf(n.metrics, 'receivedEventsTotal'), perSec: 0 },
    bytesIn: { total: metricOf(n.metrics, 'receivedBytesTotal'), perSec: 0 },
    eventsOut: { total: metricOf(n.metrics, 'sentEventsTotal'), perSec: 0 },
    bytesOut: { total: metricOf(n.metrics, 'sentBytesTotal'), perSec: 0 },
    errors: 0,
  };
  s.rows.set(key(n.componentId), row);
  for (const o of n.outputs ?? []) {
    if (o.outputId === '_default') continue;
    s.rows.set(key(n.componentId, o.outputId), { ...row, output: o.outputId, eventsIn: zero(), bytesIn: zero(), bytesOut: zero(), eventsOut: { total: o.sentEventsTotal?.sentEventsTotal ?? 0, perSec: 0 } });
  }
}

export function removeComponent(s: TopState, id: string): void {
  for (const [k, r] of s.rows) if (r.id === id) s.rows.delete(k);
}

type Field = 'eventsIn' | 'bytesIn' | 'eventsOut' | 'bytesOut';

/** Which row field and which part each subscription updates, by its field name in the schema. */
const SUBSCRIPTION_FIELDS: Record<string, { field: Field; metric?: string; throughput?: true }> = {
  componentReceivedEventsTotals: { field: 'eventsIn', metric: 'receivedEventsTotal' },
  componentReceivedEventsThroughputs: { field: 'eventsIn', throughput: true },
  componentReceivedBytesTotals: { field: 'bytesIn', metric: 'receivedBytesTotal' },
  componentReceivedBytesThroughputs: { field: 'bytesIn', throughput: true },
  componentSentEventsTotals: { field: 'eventsOut', metric: 'sentEventsTotal' },
  componentSentEventsThroughputs: { field: 'eventsOut', throughput: true },
  componentSentBytesTotals: { field: 'bytesOut', metric: 'sentBytesTotal' },
  componentSentBytesThroughputs: { field: 'bytesOut', throughput: true },
};

interface MetricItem {
  componentId: string;
  throughput?: number;
  metric?: Record<string, number>;
  outputs?: { outputId: string; throughput?: number; sentEventsTotal?: { sentEventsTotal: number } | null }[];
}

/** Applies one subscription message (`{<field>: [...]}`) to the state; `intervalMs` turns deltas into rates. */
export function applyMessage(s: TopState, data: Record<string, unknown>, intervalMs: number): void {
  for (const [name, value] of Object.entries(data)) {
    if (name === 'uptime') {
      s.uptimeSecs = (value as { seconds: number }).seconds;
      continue;
    }
    if (name === 'componentErrorsTotals') {
      for (const item of value as MetricItem[]) {
        const row = s.rows.get(key(item.componentId));
        if (row) row.errors = item.metric?.errorsTotal ?? row.errors;
      }
      continue;
    }
    const how = SUBSCRIPTION_FIELDS[name];
    if (!how) continue;
    for (const item of value as MetricItem[]) {
      const row = s.rows.get(key(item.componentId));
      if (!row) continue;
      if (how.throughput) row[how.field].perSec = ((item.throughput ?? 0) * 1000) / intervalMs;
      else row[how.field].total = item.metric?.[how.metric!] ?? row[how.field].total;
      for (const o of item.outputs ?? []) {
        const orow = s.rows.get(key(item.componentId, o.outputId));
        if (!orow) continue;
        if (how.throughput) orow.eventsOut.perSec = ((o.throughput ?? 0) * 1000) / intervalMs;
        else orow.eventsOut.total = o.sentEventsTotal?.sentEventsTotal ?? orow.eventsOut.total;
      }
    }
  }
}

/** Whether an id matches one of the `--components` globs (`*` any run, `?` one character). */
export function matchesAny(id: string, globs: readonly string[]): boolean {
  return globs.some((g) => new RegExp('^' + g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$').test(id));
}

const KIND_ORDER = { source: 0, transform: 1, sink: 2 } as const;

/** The rows shown, in `vector top`'s order: by kind, then id, a component's outputs after it. */
export function visibleRows(s: TopState, globs: readonly string[]): Row[] {
  return [...s.rows.values()]
    .filter((r) => matchesAny(r.id, globs))
    .sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.id.localeCompare(b.id) || a.output.localeCompare(b.output));
}

const UNITS = ['', 'k', 'M', 'G', 'T', 'P'];
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** A count for the table: exact with thousands separators, or with `--human-metrics` short (1.23k). */
export function formatCount(n: number, human: boolean): string {
  if (!human) return Math.round(n).toLocaleString('en-US');
  let i = 0;
  while (Math.abs(n) >= 1000 && i < UNITS.length - 1) {
    n /= 1000;
    i++;
  }
  return (i === 0 ? String(Math.round(n)) : n.toFixed(2)) + UNITS[i];
}

/** A byte count: exact, or with `--human-metrics` in binary units. */
export function formatBytes(n: number, human: boolean): string {
  if (!human) return Math.round(n).toLocaleString('en-US');
  let i = 0;
  while (Math.abs(n) >= 1024 && i < BYTE_UNITS.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? String(Math.round(n)) : n.toFixed(2)) + ' ' + BYTE_UNITS[i];
}

/** "total (rate/s)" as `vector top` shows a column; a rate of zero is left out. */
export function formatRate(r: Rate, human: boolean, bytes = false): string {
  const f = bytes ? formatBytes : formatCount;
  return r.perSec > 0 ? `${f(r.total, human)} (${f(r.perSec, human)}/s)` : f(r.total, human);
}
