/**
 * One batch to one write request: metrics of one series collapse into
 * one line (incremental values add up, the latest absolute value wins, the later time is kept), so
 * two deltas of a counter with the same timestamp do not overwrite each other on the server.
 */
import type { Event, MetricKind, MetricValue } from '../../../lib/event.js';
import type { Timestamp } from '../../../lib/value.js';
import { mergeMetricValue } from '../../shared/metrics/merge.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { EncodedMetric, TsdbEncoder } from './encoder.js';
import { later } from './line-protocol.js';

/** A write request, re-sent unchanged on every retry; an empty body is not sent at all. */
export interface TsdbRequest extends SinkRequest {
  readonly body: Buffer;
}

/** A line being collapsed: the first item of its series, and what later items added. */
interface Slot {
  readonly first: EncodedMetric;
  kind: MetricKind;
  value: MetricValue;
  time: Timestamp;
  merged: boolean;
}

/** The body of a batch: one line per series and kind, lines joined by `\n` without a trailing one. */
export function batchBody(items: readonly EncodedMetric[], encoder: Pick<TsdbEncoder, 'line'>): string {
  if (items.length === 1) return items[0]!.line;
  const slots = new Map<string, Slot>();
  for (const item of items) {
    if (item.value === undefined) continue;
    const key = item.kind === 'incremental' ? '+' + item.head : '=' + item.head;
    const slot = slots.get(key);
    if (!slot) slots.set(key, { first: item, kind: item.kind, value: item.value, time: item.time, merged: false });
    else {
      slot.value = mergeMetricValue(item.kind, slot.value, item.value);
      slot.time = later(slot.time, item.time);
      slot.merged = true;
    }
  }
  let body = '';
  for (const slot of slots.values()) {
    const text = slot.merged ? encoder.line(slot.first.head, slot.value, slot.time) : slot.first.line;
    if (text) body += (body === '' ? '' : '\n') + text;
  }
  return body;
}

/** Builds the request of one batch; every event of the batch rides on it, written or collapsed. */
export function buildRequest(items: readonly EncodedMetric[], encoder: Pick<TsdbEncoder, 'line'>): TsdbRequest {
  const body = Buffer.from(batchBody(items, encoder), 'utf8');
  const events = new Array<Event>(items.length);
  for (let i = 0; i < items.length; i++) events[i] = items[i]!.event;
  return { events, body, bytes: body.length };
}
