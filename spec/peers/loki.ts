/**
 * A strict Loki push server for `labelstore` tests and benchmarks (no Loki installs here,
 * so none runs in tests). `POST /loki/api/v1/push` takes either a raw-snappy `logproto.PushRequest`
 * (`application/x-protobuf`) or the JSON form (`application/json`, optionally gzip), validates
 * stream labels as Loki does, and stores accepted entries per tenant and stream.
 *
 * Loki's rules kept here: an invalid stream is skipped and the request answers 400 with the last
 * validation message while the valid streams are still stored; with `rejectOutOfOrder` (Loki
 * before 2.4) an entry older than the newest stored one of its stream is refused, with Loki's
 * `entry out of order` text, and the others are kept; an entry repeating a stored one (time and
 * line; before 2.4 only the newest) is dropped silently as a duplicate.
 */
import { type HttpPeer, type PeerRequest, type PeerResponse, startHttpPeer, text } from './http-peer.js';
import { canonicalLabels, parseLabelSet, lokiMessages, validateLabels } from './loki-labels.js';
// one schema for the sink and this peer: weir's own copy of Loki's pkg/push/push.proto
import { pushRequestType } from '../../connectors/shared/labelstore/push-proto.js';
import { snappyCompress, snappyUncompress } from '../../lib/net/snappy.js';
import { gunzipSync, inflateSync } from 'node:zlib';

const PushRequest = pushRequestType();

/** A stream as a test writes it (for {@link encodePushRequest}). */
export interface PushStream {
  labels: string;
  entries: { ts: bigint; line: string; structuredMetadata?: Record<string, string> }[];
}

/** Encodes and snappy-compresses a push body, as Loki's clients send it. */
export function encodePushRequest(streams: readonly PushStream[]): Buffer {
  const msg = PushRequest.fromObject({
    streams: streams.map((s) => ({
      labels: s.labels,
      entries: s.entries.map((e) => ({
        timestamp: { seconds: String(e.ts / 1_000_000_000n), nanos: Number(e.ts % 1_000_000_000n) },
        line: e.line,
        structuredMetadata: Object.entries(e.structuredMetadata ?? {}).map(([name, value]) => ({ name, value })),
      })),
    })),
  });
  return snappyCompress(PushRequest.encode(msg).finish());
}

/** One stored log line. */
export interface LokiEntry {
  /** `X-Scope-OrgID`, when sent. */
  tenant: string | undefined;
  labels: Record<string, string>;
  /** The labels as Loki prints them: sorted, `{a="1", b="2"}`. */
  stream: string;
  /** Epoch nanoseconds. */
  ts: bigint;
  line: string;
  structuredMetadata: Record<string, string>;
}

export interface LokiOptions {
  /** Loki before 2.4: refuse entries older than the newest of their stream (default false: accept). */
  rejectOutOfOrder?: boolean;
  /** Multi-tenant mode (`auth_enabled`): a push without `X-Scope-OrgID` is refused with 401. */
  requireTenant?: boolean;
  /** Credentials a gateway in front of Loki would check; unset = none checked. */
  auth?: { user: string; password: string } | { token: string };
  /** Loki's `max_label_names_per_series`; default 15. */
  maxLabelNames?: number;
  /** Answer `/ready` with 503 until set to true; default ready. */
  ready?: boolean;
}

export interface LokiPeer extends HttpPeer {
  /** Every accepted entry, in arrival order. */
  readonly entries: LokiEntry[];
  /** Entries of one stream (by its canonical label text), optionally of one tenant. */
  streamEntries(stream: string, tenant?: string): LokiEntry[];
  /** Flips `/ready`. */
  setReady(ready: boolean): void;
  clear(): void;
}

interface WireStream {
  labels: string;
  entries: { ts: bigint; line: string; structuredMetadata: Record<string, string> }[];
}

class PushError extends Error {}

/** Go's `time.Time.String()` in UTC, as Loki prints entry timestamps. */
export function goTime(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const iso = new Date(ms).toISOString();
  const frac = String(((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).padStart(9, '0').replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`;
}

function decodeProtobuf(body: Buffer): WireStream[] {
  let raw: Buffer;
  try {
    raw = snappyUncompress(body);
  } catch (err) {
    throw new PushError(`snappy: corrupt input (${(err as Error).message})`);
  }
  let obj: { streams?: { labels?: string; entries?: { timestamp?: { seconds?: string; nanos?: number }; line?: string; structuredMetadata?: { name?: string; value?: string }[] }[] }[] };
  try {
    obj = PushRequest.toObject(PushRequest.decode(raw), { longs: String, defaults: true }) as typeof obj;
  } catch (err) {
    throw new PushError(`proto: ${(err as Error).message}`);
  }
  return (obj.streams ?? []).map((s) => ({
    labels: s.labels ?? '',
    entries: (s.entries ?? []).map((e) => ({
      ts: BigInt(e.timestamp?.seconds ?? '0') * 1_000_000_000n + BigInt(e.timestamp?.nanos ?? 0),
      line: e.line ?? '',
      structuredMetadata: Object.fromEntries((e.structuredMetadata ?? []).map((p) => [p.name ?? '', p.value ?? ''])),
    })),
  }));
}

function decodeJson(body: Buffer): WireStream[] {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new PushError(`loghttp.PushRequest: ${(err as Error).message}`);
  }
  const streams = (doc as { streams?: unknown })?.streams;
  if (!Array.isArray(streams)) throw new PushError('loghttp.PushRequest.Streams: expected an array of streams');
  return streams.map((s: unknown) => {
    const { stream, values } = (s ?? {}) as { stream?: unknown; values?: unknown };
    if (stream === null || typeof stream !== 'object' || Array.isArray(stream)) throw new PushError('loghttp.Stream.Labels: expected an object of label values');
    for (const v of Object.values(stream)) if (typeof v !== 'string') throw new PushError('loghttp.Stream.Labels: label values must be strings');
    if (!Array.isArray(values)) throw new PushError('loghttp.Stream.Values: expected an array of [timestamp, line] pairs');
    const entries = values.map((pair: unknown) => {
      if (!Array.isArray(pair) || pair.length < 2 || pair.length > 3) throw new PushError('loghttp.Entry: expected [timestamp, line] or [timestamp, line, structured metadata]');
      const [ts, line, meta] = pair as unknown[];
      if (typeof ts !== 'string' || !/^-?\d+$/.test(ts)) throw new PushError(`loghttp.Entry.Timestamp: expected a string of epoch nanoseconds, got ${JSON.stringify(ts)}`);
      if (typeof line !== 'string') throw new PushError('loghttp.Entry.Line: expected a string');
      if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta) || Object.values(meta).some((v) => typeof v !== 'string'))) {
        throw new PushError('loghttp.Entry.StructuredMetadata: expected an object of strings');
      }
      return { ts: BigInt(ts), line, structuredMetadata: { ...(meta as Record<string, string> | undefined) } };
    });
    // Loki turns the map into label text and reads it back, so a bad name fails the same way
    const labelText = `{${Object.entries(stream as Record<string, string>)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ')}}`;
    return { labels: labelText, entries };
  });
}

/** Starts the server on 127.0.0.1 (port 0). */
export async function startLoki(options: LokiOptions = {}): Promise<LokiPeer> {
  const maxLabelNames = options.maxLabelNames ?? 15;
  let ready = options.ready ?? true;
  const entries: LokiEntry[] = [];
  /** `tenant\0stream` -> newest timestamp and its lines, and (accepting any order) every `ts\0line` stored. */
  const newest = new Map<string, { ts: bigint; lines: Set<string>; seen: Set<string> }>();

  const checkAuth = (req: PeerRequest): boolean => {
    const a = options.auth;
    if (!a) return true;
    const header = String(req.headers.authorization ?? '');
    if ('token' in a) return header === `Bearer ${a.token}`;
    return header === `Basic ${Buffer.from(`${a.user}:${a.password}`).toString('base64')}`;
  };

  const push = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST') return text(405, 'Method Not Allowed');
    if (!checkAuth(req)) return text(401, 'Unauthorized');
    const tenantHeader = req.headers['x-scope-orgid'];
    const tenant = typeof tenantHeader === 'string' && tenantHeader !== '' ? tenantHeader : undefined;
    if (options.requireTenant && tenant === undefined) return text(401, 'no org id');
    let body = req.raw;
    const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
    // Loki: snappy needs nothing here (the protobuf body is always raw-snappy), gzip and deflate are undone first
    try {
      if (encoding === 'gzip') body = gunzipSync(body);
      else if (encoding === 'deflate') body = inflateSync(body);
      else if (encoding !== '' && encoding !== 'snappy') return text(400, `Content-Encoding "${encoding}" not supported`);
    } catch (err) {
      return text(400, `${encoding}: ${(err as Error).message}`);
    }
    const contentType = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    let streams: WireStream[];
    try {
      streams = contentType === 'application/json' ? decodeJson(body) : decodeProtobuf(body);
    } catch (err) {
      if (err instanceof PushError) return text(400, err.message);
      throw err;
    }
    let lastError: string | undefined;
    const outOfOrder: string[] = [];
    let streamsOutOfOrder = 0;
    for (const s of streams) {
      const parsed = parseLabelSet(s.labels);
      if (!parsed.ok) {
        lastError = lokiMessages.invalidLabels(s.labels, parsed.reason);
        continue;
      }
      const invalid = validateLabels(s.labels, parsed.pairs, maxLabelNames);
      if (invalid) {
        lastError = invalid;
        continue;
      }
      const labels = Object.fromEntries(parsed.pairs);
      const stream = canonicalLabels(labels);
      const key = `${tenant ?? ''}\u0000${stream}`;
      const failed: string[] = [];
      for (const e of s.entries) {
        let last = newest.get(key);
        // a duplicate (same time, same line) is dropped silently: before 2.4 only a repeat of the
        // newest entry is recognised, since 2.4 any stored one
        if (last && e.ts === last.ts && last.lines.has(e.line)) continue;
        if (last && !options.rejectOutOfOrder && last.seen.has(`${e.ts}\u0000${e.line}`)) continue;
        if (last && e.ts < last.ts && options.rejectOutOfOrder) {
          failed.push(`entry with timestamp ${goTime(e.ts)} ignored, reason: 'entry out of order' for stream: ${stream},`);
          continue;
        }
        if (!last) newest.set(key, (last = { ts: e.ts, lines: new Set([e.line]), seen: new Set() }));
        else if (e.ts > last.ts) {
          last.ts = e.ts;
          last.lines = new Set([e.line]);
        } else if (e.ts === last.ts) last.lines.add(e.line);
        if (!options.rejectOutOfOrder) last.seen.add(`${e.ts}\u0000${e.line}`);
        entries.push({ tenant, labels, stream, ts: e.ts, line: e.line, structuredMetadata: e.structuredMetadata });
      }
      if (failed.length > 0) {
        streamsOutOfOrder++;
        outOfOrder.push(`${failed.join('\n')}\ntotal ignored: ${failed.length} out of ${s.entries.length}`);
      }
    }
    if (outOfOrder.length > 0) return text(400, outOfOrder[streamsOutOfOrder - 1]!);
    if (lastError !== undefined) return text(400, lastError);
    return { status: 204 };
  };

  const peer = await startHttpPeer((req) => {
    switch (req.path) {
      case '/loki/api/v1/push':
        return push(req);
      case '/ready':
        return ready ? text(200, 'ready') : text(503, 'Ingester not ready: waiting for 15s after being ready');
      default:
        return text(404, '404 page not found');
    }
  });
  return Object.assign(peer, {
    entries,
    streamEntries: (stream: string, tenant?: string) => entries.filter((e) => e.stream === stream && (tenant === undefined || e.tenant === tenant)),
    setReady: (r: boolean) => {
      ready = r;
    },
    clear: () => {
      entries.length = 0;
      newest.clear();
    },
  });
}
