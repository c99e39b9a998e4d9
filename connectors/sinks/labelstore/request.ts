/**
 * One batch of one tenant to one push request: entries grouped by stream,
 * ordered, then the body in the form `compression` chooses: protobuf `PushRequest` in one raw
 * snappy block (`snappy`), or the JSON form, plain (`none`), gzipped (`gzip`) or deflated (`zlib`).
 */
import type { Event } from '../../../lib/event.js';
import type { Compressor } from '../../../lib/net/compression.js';
import { snappyCompress } from '../../../lib/net/snappy.js';
import { type PushEntry, encodePush } from '../../shared/labelstore/push-proto.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { Entry } from './encoder.js';
import type { Orderer, StreamGroup } from './ordering.js';

/** A request ready to send, re-sent unchanged on every retry. */
export interface LabelstoreRequest extends SinkRequest {
  /** `X-Scope-OrgID`; '' for none. */
  readonly tenant: string;
  /** Body as sent (after compression). */
  readonly body: Buffer;
}

/** How bodies are written: the wire form and its headers. */
export interface BodyFormat {
  readonly contentType: string;
  readonly contentEncoding: string | undefined;
  encode(groups: readonly StreamGroup[]): Promise<Buffer>;
}

/** Epoch nanoseconds as decimal text (exact: the milliseconds and the remainder are joined as text). */
export function nanosText(ms: number, ns: number): string {
  if (ms > 0) return ms + String(ns).padStart(6, '0');
  return (BigInt(ms) * 1_000_000n + BigInt(ns)).toString();
}

/** protobuf + raw snappy, the store's native form. */
export const protobufSnappy: BodyFormat = {
  contentType: 'application/x-protobuf',
  contentEncoding: 'snappy',
  encode: async (groups) => {
    const streams = groups.map((g) => {
      const entries = new Array<PushEntry>(g.entries.length);
      for (let i = 0; i < g.entries.length; i++) {
        const e = g.entries[i]!;
        const seconds = Math.floor(e.ms / 1000);
        entries[i] = { timestamp: { seconds, nanos: (e.ms - seconds * 1000) * 1_000_000 + e.ns }, line: e.line };
      }
      return { labels: g.stream.text, entries };
    });
    return snappyCompress(encodePush(streams));
  },
};

/** The JSON form: `{"streams":[{"stream":{labels},"values":[["<ns>","<line>"],…]}]}`, then `compressor`. */
export function jsonBody(compressor: Compressor): BodyFormat {
  return {
    contentType: 'application/json',
    contentEncoding: compressor.contentEncoding,
    encode: (groups) => {
      let s = '{"streams":[';
      for (let gi = 0; gi < groups.length; gi++) {
        const g = groups[gi]!;
        s += (gi > 0 ? ',' : '') + '{"stream":' + JSON.stringify(Object.fromEntries(g.stream.pairs)) + ',"values":[';
        for (let i = 0; i < g.entries.length; i++) {
          const e = g.entries[i]!;
          s += (i > 0 ? ',["' : '["') + nanosText(e.ms, e.ns) + '",' + JSON.stringify(e.line) + ']';
        }
        s += ']}';
      }
      return compressor.compress(Buffer.from(s + ']}', 'utf8'));
    },
  };
}

/** Groups entries by stream, keeping first-seen order of streams and arrival order within each. */
export function groupByStream(items: readonly Entry[]): StreamGroup[] {
  const groups = new Map<string, StreamGroup>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const g = groups.get(item.stream.text);
    if (g) g.entries.push(item);
    else groups.set(item.stream.text, { stream: item.stream, entries: [item] });
  }
  return [...groups.values()];
}

/**
 * Builds the request of one batch. Entries the orderer drops are `refused` (settled rejected,
 * never sent); a batch left with nothing to send has no `events` and is not sent.
 */
export async function buildRequest(items: readonly Entry[], tenant: string, order: Orderer, format: BodyFormat): Promise<LabelstoreRequest> {
  const groups = groupByStream(items);
  const refused = order(tenant, groups);
  const sent = refused.length > 0 ? groups.filter((g) => g.entries.length > 0) : groups;
  let events: Event[];
  if (refused.length === 0) {
    events = new Array<Event>(items.length);
    for (let i = 0; i < items.length; i++) events[i] = items[i]!.event;
  } else {
    events = [];
    for (const g of sent) for (const e of g.entries) events.push(e.event);
  }
  const body = events.length > 0 ? await format.encode(sent) : Buffer.alloc(0);
  return { events, bytes: body.length, tenant, body, refused };
}
