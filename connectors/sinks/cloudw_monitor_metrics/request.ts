/**
 * One batch of one namespace to the PutMetricData calls that carry it (as Vector
 * does). Metrics of one series and one timestamp collapse into one datum (increments add up, the
 * latest total wins); points at different times stay apart, so no sample loses its time. Distribution samples
 * of equal value merge; more than 150 distinct values become several datums. Calls hold at most
 * 1,000 datums and stay under the service's 1 MiB per request.
 */
import type { Event, MetricKind, MetricValue } from '../../../lib/event.js';
import { mergeMetricValue } from '../../shared/metrics/merge.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import { MAX_DATUMS_PER_CALL } from './config.js';
import type { Dimension, MetricItem } from './encoder.js';

const HOUR_MS = 3_600_000;
/** The oldest timestamp sent: the service's two weeks, less 5 minutes of margin. */
export const MAX_AGE_MS = 14 * 24 * HOUR_MS - 5 * 60_000;
/** How far ahead a timestamp may be; one this far ahead or more is not sent. */
export const MAX_AHEAD_MS = 2 * HOUR_MS;
/** Values (and counts) per datum. */
export const MAX_VALUES_PER_DATUM = 150;
/** Body budget of one call: the service takes 1,048,576 bytes; the rest is headroom for the envelope. */
export const MAX_CALL_BYTES = 1_000_000;

/** One datum as the SDK takes it. */
export interface Datum {
  MetricName: string;
  Dimensions?: Dimension[];
  Timestamp?: Date;
  Value?: number;
  Values?: number[];
  Counts?: number[];
}

/** The events and datums of one PutMetricData call. */
export interface MetricCall {
  readonly events: readonly Event[];
  readonly datums: readonly Datum[];
}

/** The calls of one batch; a retry resends only the calls not yet accepted. */
export interface MetricsRequest extends SinkRequest {
  readonly namespace: string;
  readonly calls: readonly MetricCall[];
  /** Events never sent: timestamps outside the window the service takes. */
  readonly outOfRange: readonly Event[];
  /** Events never sent: aggregated histograms and summaries. */
  readonly unsupported: readonly Event[];
}

/** The same request without its first `done` calls. */
export function remaining(req: MetricsRequest, done: number): MetricsRequest {
  const calls = req.calls.slice(done);
  return { ...req, calls, events: calls.flatMap((c) => c.events), outOfRange: [], unsupported: [] };
}

interface Slot {
  readonly first: MetricItem;
  readonly events: Event[];
  kind: MetricKind;
  value: MetricValue;
  timestamp: number | undefined;
}

/** The datums of one collapsed series; none when nothing is left to send (a distribution without samples). */
export function datumsOf(name: string, dimensions: readonly Dimension[], timestamp: number | undefined, value: MetricValue): Datum[] {
  const base = (): Datum => ({
    MetricName: name,
    ...(dimensions.length > 0 ? { Dimensions: dimensions as Dimension[] } : {}),
    ...(timestamp !== undefined ? { Timestamp: new Date(timestamp) } : {}),
  });
  switch (value.type) {
    case 'counter':
    case 'gauge':
      return [{ ...base(), Value: value.value }];
    case 'set':
      return [{ ...base(), Value: new Set(value.values).size }];
    case 'distribution': {
      const rates = new Map<number, number>();
      for (const s of value.samples) if (s.rate > 0) rates.set(s.value, (rates.get(s.value) ?? 0) + s.rate);
      const values = [...rates.keys()].sort((a, b) => a - b);
      const out: Datum[] = [];
      for (let i = 0; i < values.length; i += MAX_VALUES_PER_DATUM) {
        const part = values.slice(i, i + MAX_VALUES_PER_DATUM);
        out.push({ ...base(), Values: part, Counts: part.map((x) => rates.get(x)!) });
      }
      return out;
    }
    default:
      return [];
  }
}

const sizeOf = (d: Datum) => Buffer.byteLength(JSON.stringify(d), 'utf8') + 1;

/** Builds the request of one batch of namespace `namespace` at `now` (epoch ms). */
export function buildMetricsRequest(items: readonly MetricItem[], namespace: string, now: number): MetricsRequest {
  const outOfRange: Event[] = [];
  const unsupported: Event[] = [];
  const riders: Event[] = [];
  const slots = new Map<string, Slot>();
  for (const item of items) {
    if (item.unsupported) {
      unsupported.push(item.event);
      continue;
    }
    if (item.timestamp !== undefined && (item.timestamp < now - MAX_AGE_MS || item.timestamp >= now + MAX_AHEAD_MS)) {
      outOfRange.push(item.event);
      continue;
    }
    // the first total of a counter only sets the reference: delivered with the batch, nothing to send
    if (item.value === undefined) {
      riders.push(item.event);
      continue;
    }
    const key = (item.kind === 'incremental' ? '+' : '=') + (item.timestamp ?? '') + '@' + item.series;
    const slot = slots.get(key);
    if (!slot) slots.set(key, { first: item, events: [item.event], kind: item.kind, value: item.value, timestamp: item.timestamp });
    else {
      slot.value = mergeMetricValue(item.kind, slot.value, item.value);
      slot.events.push(item.event);
    }
  }
  const calls: MetricCall[] = [];
  let events: Event[] = riders;
  let datums: Datum[] = [];
  let bytes = 0;
  let total = 0;
  const close = () => {
    if (datums.length > 0) calls.push({ events, datums });
    else if (events.length > 0 && calls.length > 0) (calls[calls.length - 1]!.events as Event[]).push(...events);
    else if (events.length > 0) calls.push({ events, datums });
    events = [];
    datums = [];
    bytes = 0;
  };
  for (const slot of slots.values()) {
    const ds = datumsOf(slot.first.name, slot.first.dimensions, slot.timestamp, slot.value);
    const size = ds.reduce((n, d) => n + sizeOf(d), 0);
    // a series' datums stay in one call, so its events settle with one answer
    if (datums.length > 0 && (datums.length + ds.length > MAX_DATUMS_PER_CALL || bytes + size > MAX_CALL_BYTES)) close();
    events.push(...slot.events);
    datums.push(...ds);
    bytes += size;
    total += size;
  }
  close();
  return { events: calls.flatMap((c) => c.events), bytes: total, namespace, calls, outOfRange, unsupported };
}
