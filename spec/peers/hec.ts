/**
 * A strict Splunk HTTP Event Collector for `siem_hec_metrics` tests and benchmarks (no Splunk
 * installs here). `POST /services/collector/event` (and `/services/collector`),
 * `Authorization: Splunk <token>`, concatenated JSON envelopes, gzip, and Splunk's JSON answers
 * (`{"text":"Success","code":0}`, `{"text":"Invalid token","code":4}` ...).
 *
 * Indexer acknowledgements: for a token with acks on, every request must name a channel (GUID,
 * `X-Splunk-Request-Channel` or `?channel=`); a success carries `ackId` (per channel, from 0), and
 * `POST /services/collector/ack` answers `{"acks":{"<id>":true|false}}`. An id reported true is
 * then forgotten, as Splunk does. Modes make acks late, never, or lose chosen ids.
 */
import { type HttpPeer, type PeerRequest, type PeerResponse, decodeBody, json, startHttpPeer } from './http-peer.js';
import { type HecBodyError, type HecEnvelope, type HecMetric, metricsOf, parseHecBody, tokenOf } from './hec-protocol.js';

/** Splunk's HEC status codes with their HTTP status and text. */
export const HEC_CODES = {
  success: { status: 200, code: 0, text: 'Success' },
  tokenDisabled: { status: 403, code: 1, text: 'Token disabled' },
  tokenRequired: { status: 401, code: 2, text: 'Token is required' },
  invalidAuthorization: { status: 401, code: 3, text: 'Invalid authorization' },
  invalidToken: { status: 403, code: 4, text: 'Invalid token' },
  noData: { status: 400, code: 5, text: 'No data' },
  invalidDataFormat: { status: 400, code: 6, text: 'Invalid data format' },
  incorrectIndex: { status: 400, code: 7, text: 'Incorrect index' },
  serverBusy: { status: 503, code: 9, text: 'Server is busy' },
  channelMissing: { status: 400, code: 10, text: 'Data channel is missing' },
  invalidChannel: { status: 400, code: 11, text: 'Invalid data channel' },
  eventRequired: { status: 400, code: 12, text: 'Event field is required' },
  eventBlank: { status: 400, code: 13, text: 'Event field cannot be blank' },
  ackDisabled: { status: 400, code: 14, text: 'ACK is disabled' },
  indexedFields: { status: 400, code: 15, text: 'Error in handling indexed fields' },
  healthy: { status: 200, code: 17, text: 'HEC is healthy' },
  queuesFull: { status: 503, code: 18, text: 'HEC is unhealthy, queues are full' },
} as const;

type Code = (typeof HEC_CODES)[keyof typeof HEC_CODES];
const reply = (c: Code, extra: Record<string, unknown> = {}): PeerResponse => json(c.status, { text: c.text, code: c.code, ...extra });

/** The answer Splunk gives for a refused body. */
export function bodyErrorReply(e: HecBodyError): PeerResponse {
  switch (e.kind) {
    case 'no-data':
      return reply(HEC_CODES.noData);
    case 'invalid-format':
      return reply(HEC_CODES.invalidDataFormat, { 'invalid-event-number': e.at });
    case 'event-required':
      return reply(HEC_CODES.eventRequired, { 'invalid-event-number': e.at });
    case 'event-blank':
      return reply(HEC_CODES.eventBlank, { 'invalid-event-number': e.at });
    case 'indexed-fields':
      return reply(HEC_CODES.indexedFields, { 'invalid-event-number': e.at });
  }
}

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Settings of one HEC token. */
export interface HecToken {
  /** Indexer acknowledgement on this token; default true. */
  acks?: boolean;
  /** Indexes the token may write to; unset = any. */
  indexes?: string[];
  disabled?: boolean;
}

/** When an ack id turns true. */
export interface AckMode {
  /** Queries naming the id that still answer false before it turns true; default 0. */
  afterQueries?: number;
  /** No id ever turns true. */
  never?: boolean;
  /** Ids the server loses: they stay false forever. */
  lose?: (ackId: number, channel: string) => boolean;
}

export interface HecOptions {
  /** Token -> settings; default `{ 'weir-token': { acks: true } }`. */
  tokens?: Record<string, HecToken>;
  ack?: AckMode;
  /** `/services/collector/health` answers 503 (queues full) while false; default true. */
  healthy?: boolean;
}

/** A stored envelope with the request facts a test asserts on. */
export interface HecEvent extends HecEnvelope {
  token: string;
  channel: string | undefined;
}

export interface HecPeer extends HttpPeer {
  /** Every accepted envelope (metric or not), in arrival order. */
  readonly events: HecEvent[];
  /** Measurements a metrics index would store. */
  readonly metrics: (HecMetric & { token: string })[];
  /** Metric envelopes a metrics index would drop, with the reason. */
  readonly droppedMetrics: { envelope: HecEnvelope; reason: string }[];
  /** Ack queries received: channel and ids asked. */
  readonly ackQueries: { channel: string; acks: number[] }[];
  setHealthy(healthy: boolean): void;
  setAckMode(mode: AckMode): void;
  clear(): void;
}

interface Pending {
  queries: number;
}

/** Starts the collector on 127.0.0.1 (port 0). */
export async function startHec(options: HecOptions = {}): Promise<HecPeer> {
  const tokens = options.tokens ?? { 'weir-token': { acks: true } };
  let ackMode: AckMode = options.ack ?? {};
  let healthy = options.healthy ?? true;
  const events: HecEvent[] = [];
  const metrics: (HecMetric & { token: string })[] = [];
  const droppedMetrics: { envelope: HecEnvelope; reason: string }[] = [];
  const ackQueries: { channel: string; acks: number[] }[] = [];
  /** channel -> next ack id and the ids not yet reported true. */
  const channels = new Map<string, { next: number; pending: Map<number, Pending> }>();

  const authenticate = (req: PeerRequest): { token: string; settings: HecToken } | PeerResponse => {
    const t = tokenOf(req.headers.authorization, ['Splunk', 'Basic']);
    if ('missing' in t) return reply(HEC_CODES.tokenRequired);
    if ('malformed' in t) return reply(HEC_CODES.invalidAuthorization);
    const settings = tokens[t.token];
    if (!settings) return reply(HEC_CODES.invalidToken);
    if (settings.disabled) return reply(HEC_CODES.tokenDisabled);
    return { token: t.token, settings };
  };
  const channelOf = (req: PeerRequest): string | undefined => {
    const h = req.headers['x-splunk-request-channel'];
    const v = typeof h === 'string' ? h : req.query.get('channel') ?? undefined;
    return v === '' ? undefined : v;
  };

  const collect = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST') return json(405, { text: 'Method Not Allowed', code: 6 });
    const auth = authenticate(req);
    if ('status' in auth) return auth;
    const acks = auth.settings.acks ?? true;
    const channel = channelOf(req);
    if (acks && channel === undefined) return reply(HEC_CODES.channelMissing);
    if (channel !== undefined && !GUID.test(channel)) return reply(HEC_CODES.invalidChannel);
    const decoded = decodeBody(req, ['gzip']);
    if (!decoded.ok) return reply(HEC_CODES.invalidDataFormat, { 'invalid-event-number': 0 });
    const body = parseHecBody(decoded.body.toString('utf8'), true);
    const allowed = auth.settings.indexes;
    // the events before a bad one are indexed; the answer names the bad one
    for (let n = 0; n < body.envelopes.length; n++) {
      const env = body.envelopes[n]!;
      if (allowed && env.index !== undefined && !allowed.includes(env.index)) return reply(HEC_CODES.incorrectIndex, { 'invalid-event-number': n });
      events.push({ ...env, token: auth.token, channel });
      if (env.event !== 'metric') continue;
      const m = metricsOf(env);
      if ('dropped' in m) droppedMetrics.push({ envelope: env, reason: m.dropped });
      else for (const x of m.metrics) metrics.push({ ...x, token: auth.token });
    }
    if (body.error) return bodyErrorReply(body.error);
    if (!acks || channel === undefined) return reply(HEC_CODES.success);
    let state = channels.get(channel);
    if (!state) channels.set(channel, (state = { next: 0, pending: new Map() }));
    const ackId = state.next++;
    state.pending.set(ackId, { queries: 0 });
    return reply(HEC_CODES.success, { ackId });
  };

  const ack = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST') return json(405, { text: 'Method Not Allowed', code: 6 });
    const auth = authenticate(req);
    if ('status' in auth) return auth;
    if (!(auth.settings.acks ?? true)) return reply(HEC_CODES.ackDisabled);
    const channel = channelOf(req);
    if (channel === undefined) return reply(HEC_CODES.channelMissing);
    if (!GUID.test(channel)) return reply(HEC_CODES.invalidChannel);
    const decoded = decodeBody(req, ['gzip']);
    let ids: unknown;
    try {
      ids = decoded.ok ? (JSON.parse(decoded.body.toString('utf8')) as { acks?: unknown }).acks : undefined;
    } catch {
      ids = undefined;
    }
    if (!Array.isArray(ids) || !ids.every((x) => Number.isInteger(x) && x >= 0)) return reply(HEC_CODES.invalidDataFormat);
    ackQueries.push({ channel, acks: ids as number[] });
    const state = channels.get(channel);
    const out: Record<string, boolean> = {};
    for (const id of ids as number[]) {
      const p = state?.pending.get(id);
      if (!p) {
        out[String(id)] = false;
        continue;
      }
      p.queries++;
      const done = !ackMode.never && !(ackMode.lose?.(id, channel) ?? false) && p.queries > (ackMode.afterQueries ?? 0);
      out[String(id)] = done;
      if (done) state!.pending.delete(id); // reported once, then forgotten
    }
    return json(200, { acks: out });
  };

  const health = (req: PeerRequest): PeerResponse => {
    if (req.headers.authorization !== undefined) {
      const auth = authenticate(req);
      // the health endpoint answers a bad token with 400, not the 401/403 of the event endpoint
      if ('status' in auth) return json(400, { text: HEC_CODES.invalidToken.text, code: HEC_CODES.invalidToken.code });
    }
    return healthy ? reply(HEC_CODES.healthy) : reply(HEC_CODES.queuesFull);
  };

  const peer = await startHttpPeer((req) => {
    switch (req.path) {
      case '/services/collector':
      case '/services/collector/event':
      case '/services/collector/event/1.0':
        return collect(req);
      case '/services/collector/ack':
      case '/services/collector/ack/1.0':
        return ack(req);
      case '/services/collector/health':
      case '/services/collector/health/1.0':
        return health(req);
      default:
        return json(404, { text: 'The requested URL was not found on this server.', code: 404 });
    }
  });
  return Object.assign(peer, {
    events,
    metrics,
    droppedMetrics,
    ackQueries,
    setHealthy: (h: boolean) => {
      healthy = h;
    },
    setAckMode: (m: AckMode) => {
      ackMode = m;
    },
    clear: () => {
      events.length = 0;
      metrics.length = 0;
      droppedMetrics.length = 0;
      ackQueries.length = 0;
      channels.clear();
    },
  });
}
