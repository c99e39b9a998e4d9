/**
 * A strict Humio / LogScale HEC-compatible ingest server for `logsvc_metrics` tests and
 * benchmarks (no LogScale installs here). The HEC endpoints (`/api/v1/ingest/hec`,
 * `/services/collector`, and `/services/collector/event`, which Vector's sink posts to) read the
 * HEC body with the shared reader; an ingest token names one repository and parser.
 *
 * LogScale's rules kept here: every envelope member is optional but an envelope must carry at
 * least one; `index`, when present, must equal the token's repository (public endpoints); `fields`
 * whose names start with `#` become tags; `sourcetype` names the parser. No indexer
 * acknowledgements: the HEC channel is recorded, never required.
 */
import { type HttpPeer, type PeerRequest, type PeerResponse, decodeBody, json, startHttpPeer } from './http-peer.js';
import { type HecEnvelope, parseHecBody, tokenOf } from './hec-protocol.js';

/** An ingest token's repository (and, for the record, its parser). */
export interface HumioToken {
  repository: string;
  parser?: string;
}

export interface HumioOptions {
  /** Token -> repository; default `{ 'weir-ingest-token': { repository: 'weir' } }`. */
  tokens?: Record<string, HumioToken>;
  /** Answer `/services/collector/health[/1.0]` like a HEC (the metrics sink's check); default true. */
  hecHealth?: boolean;
}

/** An ingested event as the repository would hold it. */
export interface HumioEvent {
  repository: string;
  /** `@timestamp`, epoch ms, when the envelope had a time. */
  timestamp: number | undefined;
  timezone: string | undefined;
  /** The envelope's `event` (object or string), as sent. */
  event: unknown;
  host: string | undefined;
  source: string | undefined;
  /** The parser the service would apply (`sourcetype`, else the token's). */
  parser: string | undefined;
  /** `fields` whose names start with `#`, without the `#`. */
  tags: Record<string, unknown>;
  /** The other `fields`. */
  fields: Record<string, unknown>;
  channel: string | undefined;
  envelope: HecEnvelope;
}

export interface HumioPeer extends HttpPeer {
  readonly events: HumioEvent[];
  clear(): void;
}

const ENVELOPE_KEYS = ['event', 'time', 'timezone', 'index', 'host', 'source', 'sourcetype', 'fields'];

/** Starts the server on 127.0.0.1 (port 0). */
export async function startHumio(options: HumioOptions = {}): Promise<HumioPeer> {
  const tokens = options.tokens ?? { 'weir-ingest-token': { repository: 'weir' } };
  const events: HumioEvent[] = [];

  const ingest = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST') return json(405, { text: 'Method Not Allowed', code: 405 });
    const t = tokenOf(req.headers.authorization, ['Bearer', 'Splunk', 'Basic']);
    if (!('token' in t)) return json(401, { text: 'Token is required', code: 2 });
    const token = tokens[t.token];
    if (!token) return json(401, { text: 'Invalid token', code: 4 });
    const decoded = decodeBody(req, ['gzip']);
    if (!decoded.ok) return json(400, { text: decoded.message, code: 6 });
    const body = parseHecBody(decoded.body.toString('utf8'), false);
    if (body.error) {
      if (body.error.kind === 'no-data') return json(400, { text: 'No data', code: 5 });
      return json(400, { text: 'Invalid data format', code: 6, 'invalid-event-number': 'at' in body.error ? body.error.at : 0 });
    }
    const channelHeader = req.headers['x-splunk-request-channel'];
    const channel = typeof channelHeader === 'string' ? channelHeader : req.query.get('channel') ?? undefined;
    const accepted: HumioEvent[] = [];
    for (let n = 0; n < body.envelopes.length; n++) {
      const env = body.envelopes[n]!;
      if (!ENVELOPE_KEYS.some((k) => k in env.raw)) return json(400, { text: 'Invalid data format', code: 6, 'invalid-event-number': n });
      if (env.index !== undefined && env.index !== token.repository) {
        return json(400, { text: `index "${env.index}" does not match the repository of the ingest token`, code: 7, 'invalid-event-number': n });
      }
      const timezone = env.raw.timezone;
      if (timezone !== undefined && typeof timezone !== 'string') return json(400, { text: 'Invalid data format', code: 6, 'invalid-event-number': n });
      const tags: Record<string, unknown> = {};
      const fields: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(env.fields ?? {})) {
        if (k.startsWith('#')) tags[k.slice(1)] = v;
        else fields[k] = v;
      }
      accepted.push({
        repository: token.repository,
        // LogScale keeps milliseconds
        timestamp: env.time === undefined ? undefined : Math.round(env.time * 1000),
        timezone,
        event: env.event,
        host: env.host,
        source: env.source,
        parser: env.sourcetype ?? token.parser,
        tags,
        fields,
        channel,
        envelope: env,
      });
    }
    // one request is one ingest unit: a refused envelope refuses the request
    events.push(...accepted);
    return json(200, { text: 'Success', code: 0 });
  };

  const peer = await startHttpPeer((req) => {
    switch (req.path) {
      case '/api/v1/ingest/hec':
      case '/services/collector':
      case '/services/collector/event':
        return ingest(req);
      case '/services/collector/health':
      case '/services/collector/health/1.0':
        return options.hecHealth === false ? json(404, { text: 'Not Found' }) : json(200, { text: 'HEC is healthy', code: 17 });
      case '/api/v1/status':
        return json(200, { status: 'OK', version: '1.x-weir-peer' });
      default:
        return json(404, { text: 'Not Found' });
    }
  });
  return Object.assign(peer, {
    events,
    clear: () => {
      events.length = 0;
    },
  });
}
