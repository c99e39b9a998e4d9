/**
 * One batch of one log stream to the PutLogEvents calls that carry it (as Vector
 * sends one batch). Events outside the window the service stores (older than 14 days, more than
 * 2 h ahead) are set aside; the rest are sorted by timestamp and cut into calls so that none breaks
 * a service limit: ≤ 10,000 events, ≤ 1,048,576 bytes counting 26 per event, a span under 24 h.
 */
import type { Event } from '../../../lib/event.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import { MAX_BYTES_PER_CALL, MAX_EVENTS_PER_CALL } from './config.js';
import { type LogEntry, splitTarget } from './encoder.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The oldest event sent, with Vector's 5 minutes of margin before the service's 14 days. */
export const MAX_AGE_MS = 14 * DAY_MS - 5 * 60_000;
/** How far ahead an event may be; one this far ahead or more is not sent. */
export const MAX_AHEAD_MS = 2 * HOUR_MS;

/** The events of one PutLogEvents call, in chronological order. */
export interface LogCall {
  readonly events: readonly Event[];
  readonly logEvents: readonly { readonly timestamp: number; readonly message: string }[];
  readonly bytes: number;
}

/** The calls of one batch; a retry resends only the calls not yet accepted. */
export interface LogsRequest extends SinkRequest {
  readonly group: string;
  readonly stream: string;
  readonly calls: readonly LogCall[];
  /** Events outside the service's window, never sent. */
  readonly outOfRange: readonly Event[];
}

/** The same request without its first `done` calls. */
export function remaining(req: LogsRequest, done: number): LogsRequest {
  const calls = req.calls.slice(done);
  return { ...req, calls, events: calls.flatMap((c) => c.events), bytes: calls.reduce((n, c) => n + c.bytes, 0), outOfRange: [] };
}

/** Builds the request of one batch at `now` (epoch ms); `key` names the group and stream. */
export function buildLogsRequest(items: readonly LogEntry[], key: string, now: number, limits: { maxEvents: number; maxBytes: number } = { maxEvents: MAX_EVENTS_PER_CALL, maxBytes: MAX_BYTES_PER_CALL }): LogsRequest {
  const { group, stream } = splitTarget(key);
  const oldest = now - MAX_AGE_MS;
  const newest = now + MAX_AHEAD_MS;
  const outOfRange: Event[] = [];
  const kept: LogEntry[] = [];
  for (const item of items) {
    if (item.timestamp < oldest || item.timestamp >= newest) outOfRange.push(item.event);
    else kept.push(item);
  }
  // stable: events with equal timestamps keep their arrival order
  kept.sort((a, b) => a.timestamp - b.timestamp);
  const maxEvents = Math.min(limits.maxEvents, MAX_EVENTS_PER_CALL);
  const maxBytes = Math.min(limits.maxBytes, MAX_BYTES_PER_CALL);
  const calls: LogCall[] = [];
  let events: Event[] = [];
  let logEvents: { timestamp: number; message: string }[] = [];
  let bytes = 0;
  let first = 0;
  const close = () => {
    if (events.length > 0) calls.push({ events, logEvents, bytes });
    events = [];
    logEvents = [];
    bytes = 0;
  };
  for (const item of kept) {
    if (events.length > 0 && (events.length >= maxEvents || bytes + item.size > maxBytes || item.timestamp - first >= DAY_MS)) close();
    if (events.length === 0) first = item.timestamp;
    events.push(item.event);
    logEvents.push({ timestamp: item.timestamp, message: item.message });
    bytes += item.size;
  }
  close();
  return { events: calls.flatMap((c) => c.events), bytes: calls.reduce((n, c) => n + c.bytes, 0), group, stream, calls, outOfRange };
}
