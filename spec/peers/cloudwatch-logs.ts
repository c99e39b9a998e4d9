/**
 * A strict CloudWatch Logs server (no emulator runs here) for the
 * `cloudw_monitor_logs` sink, from the service's API reference: JSON 1.1 over `POST /` with
 * `X-Amz-Target: Logs_20140328.<Operation>`, SigV4 with the service name `logs`, and the
 * PutLogEvents limits (≤ 10,000 events, ≤ 1,048,576 bytes counting 26 bytes per event, events in
 * chronological order, a span of ≤ 24 h, messages of ≥ 1 character). Events older than 14 days or
 * more than 2 h ahead are refused one by one in `rejectedLogEventsInfo`, as the service does today;
 * sequence tokens are accepted and ignored (the service no longer checks them). Errors use the
 * service's shapes: status 400 (500 for ServiceUnavailable) and `{"__type": …, "message": …}`.
 */
import { type HttpPeer, type PeerRequest, type PeerResponse, decodeBody, json, startHttpPeer } from './http-peer.js';
import { type SigV4Check, checkSigV4 } from './sigv4-check.js';

/** One stored event. */
export interface StoredLogEvent {
  readonly timestamp: number;
  readonly message: string;
}

interface Stream {
  readonly creationTime: number;
  readonly events: StoredLogEvent[];
}

interface Group {
  readonly creationTime: number;
  readonly streams: Map<string, Stream>;
  readonly kmsKeyId?: string;
  readonly tags?: Record<string, string>;
  retentionInDays?: number;
}

/** Retention periods the service takes (days). */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

/** How the server is set up. */
export interface CloudwatchLogsOptions {
  /** Region the signature's scope must name; default `us-east-1`. */
  region?: string;
  /** The only key pair accepted; default `AKIDWEIRTEST` / `weir-test-secret`. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Clock of the age rules (epoch ms); default `Date.now`. */
  now?: () => number;
}

/** The running server and what it stored. */
export interface CloudwatchLogsPeer extends HttpPeer {
  readonly groups: Map<string, Group>;
  /** Every PutLogEvents call accepted, in order, with the events it carried. */
  readonly puts: { group: string; stream: string; events: StoredLogEvent[] }[];
  /** Operation names of every request that passed the protocol checks, in order. */
  readonly operations: string[];
  /** Events refused one by one (too old, too new) over all calls. */
  refusedEvents: number;
  createGroup(name: string): void;
  createStream(group: string, name: string): void;
  /** The events stored in one stream (empty when the stream does not exist). */
  events(group: string, stream: string): StoredLogEvent[];
}

/** The `X-Amz-Target` prefix of every operation. */
export const LOGS_TARGET_PREFIX = 'Logs_20140328.';
const DAY_MS = 86_400_000;
const MAX_EVENTS = 10_000;
const MAX_BATCH_BYTES = 1_048_576;
const EVENT_OVERHEAD = 26;
const MAX_EVENT_BYTES = 1_048_576;
const GROUP_NAME = /^[.\-_/#A-Za-z0-9]{1,512}$/;
const STREAM_NAME = /^[^:*]{1,512}$/;

/** An error the way the service sends it. */
export const awsJsonError = (type: string, message: string, status = 400): PeerResponse =>
  json(status, { __type: type, message }, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': crypto.randomUUID() });

class Refusal extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}
const invalid = (message: string) => new Refusal('InvalidParameterException', message);
const notFound = (message: string) => new Refusal('ResourceNotFoundException', message);

const str = (body: Record<string, unknown>, key: string, pattern: RegExp, required = true): string | undefined => {
  const v = body[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string') throw invalid(`1 validation error detected: Value at '${key}' failed to satisfy constraint: Member must not be null`);
  if (!pattern.test(v)) throw invalid(`1 validation error detected: Value '${v}' at '${key}' failed to satisfy constraint: Member must satisfy regular expression pattern: ${pattern.source}`);
  return v;
};

const limitOf = (body: Record<string, unknown>): number => {
  const l = body.limit ?? 50;
  if (typeof l !== 'number' || !Number.isInteger(l) || l < 1 || l > 50) throw invalid(`1 validation error detected: Value '${String(l)}' at 'limit' failed to satisfy constraint: Member must have value between 1 and 50`);
  return l;
};

/** Starts the server on 127.0.0.1 (port 0). */
export async function startCloudwatchLogs(options: CloudwatchLogsOptions = {}): Promise<CloudwatchLogsPeer> {
  const sig: SigV4Check = {
    service: 'logs',
    region: options.region ?? 'us-east-1',
    accessKeyId: options.accessKeyId ?? 'AKIDWEIRTEST',
    secretAccessKey: options.secretAccessKey ?? 'weir-test-secret',
  };
  const now = options.now ?? Date.now;
  const groups = new Map<string, Group>();
  const puts: CloudwatchLogsPeer['puts'] = [];
  const operations: string[] = [];
  let sequence = 1;

  const group = (name: string): Group => {
    const g = groups.get(name);
    if (!g) throw notFound('The specified log group does not exist.');
    return g;
  };

  const putLogEvents = (body: Record<string, unknown>) => {
    const groupName = str(body, 'logGroupName', GROUP_NAME)!;
    const streamName = str(body, 'logStreamName', STREAM_NAME)!;
    const events = body.logEvents;
    if (!Array.isArray(events) || events.length < 1)
      throw invalid("1 validation error detected: Value at 'logEvents' failed to satisfy constraint: Member must have length greater than or equal to 1");
    if (events.length > MAX_EVENTS)
      throw invalid(`1 validation error detected: Value at 'logEvents' failed to satisfy constraint: Member must have length less than or equal to ${MAX_EVENTS}`);
    let bytes = 0;
    const parsed: StoredLogEvent[] = [];
    for (let i = 0; i < events.length; i++) {
      const e = events[i] as Record<string, unknown> | null;
      const at = `logEvents.${i + 1}.member`;
      if (typeof e !== 'object' || e === null) throw invalid(`Value at '${at}' failed to satisfy constraint: Member must not be null`);
      for (const k of Object.keys(e)) if (k !== 'timestamp' && k !== 'message') throw invalid(`Unknown member '${k}' at '${at}'`);
      if (typeof e.timestamp !== 'number' || !Number.isInteger(e.timestamp)) throw invalid(`Value at '${at}.timestamp' failed to satisfy constraint: Member must not be null`);
      if (typeof e.message !== 'string' || e.message.length < 1)
        throw invalid(`Value at '${at}.message' failed to satisfy constraint: Member must have length greater than or equal to 1`);
      const size = Buffer.byteLength(e.message, 'utf8');
      if (size + EVENT_OVERHEAD > MAX_EVENT_BYTES) throw invalid('Log event too large.');
      bytes += size + EVENT_OVERHEAD;
      if (i > 0 && e.timestamp < parsed[i - 1]!.timestamp) throw invalid('Log events in a single PutLogEvents request must be in chronological order.');
      parsed.push({ timestamp: e.timestamp, message: e.message });
    }
    if (bytes > MAX_BATCH_BYTES) throw invalid(`Upload too large: ${bytes} bytes exceeds limit of ${MAX_BATCH_BYTES}`);
    if (parsed[parsed.length - 1]!.timestamp - parsed[0]!.timestamp > DAY_MS)
      throw invalid('The batch of log events in a single PutLogEvents request cannot span more than 24 hours.');
    if (body.sequenceToken !== undefined && typeof body.sequenceToken !== 'string') throw invalid("Value at 'sequenceToken' must be a string");
    const stream = group(groupName).streams.get(streamName);
    if (!stream) throw notFound('The specified log stream does not exist.');
    // the service refuses these one by one and stores the rest
    const t = now();
    let tooOldEnd = -1;
    let tooNewStart = -1;
    const kept: StoredLogEvent[] = [];
    for (let i = 0; i < parsed.length; i++) {
      const e = parsed[i]!;
      if (e.timestamp < t - 14 * DAY_MS) tooOldEnd = i + 1;
      else if (e.timestamp > t + 2 * 3_600_000) {
        if (tooNewStart < 0) tooNewStart = i;
      } else kept.push(e);
    }
    peer.refusedEvents += parsed.length - kept.length;
    stream.events.push(...kept);
    puts.push({ group: groupName, stream: streamName, events: kept });
    const out: Record<string, unknown> = { nextSequenceToken: String(sequence++).padStart(56, '4') };
    if (tooOldEnd >= 0 || tooNewStart >= 0)
      out.rejectedLogEventsInfo = { ...(tooOldEnd >= 0 ? { tooOldLogEventEndIndex: tooOldEnd } : {}), ...(tooNewStart >= 0 ? { tooNewLogEventStartIndex: tooNewStart } : {}) };
    return out;
  };

  const createLogGroup = (body: Record<string, unknown>) => {
    const name = str(body, 'logGroupName', GROUP_NAME)!;
    const kmsKeyId = str(body, 'kmsKeyId', /^.{1,256}$/s, false);
    let tags: Record<string, string> | undefined;
    if (body.tags !== undefined) {
      const t = body.tags as Record<string, unknown>;
      const entries = typeof t === 'object' && t !== null ? Object.entries(t) : [];
      if (entries.length < 1 || entries.length > 50) throw invalid("Value at 'tags' failed to satisfy constraint: Member must have between 1 and 50 entries");
      for (const [k, v] of entries)
        if (k.length < 1 || k.length > 128 || k.startsWith('aws:') || typeof v !== 'string' || v.length > 256) throw invalid(`Value at 'tags' failed to satisfy constraint: invalid tag ${JSON.stringify(k)}`);
      tags = Object.fromEntries(entries) as Record<string, string>;
    }
    if (groups.has(name)) throw new Refusal('ResourceAlreadyExistsException', 'The specified log group already exists');
    groups.set(name, { creationTime: now(), streams: new Map(), ...(kmsKeyId !== undefined ? { kmsKeyId } : {}), ...(tags ? { tags } : {}) });
    return {};
  };

  const putRetentionPolicy = (body: Record<string, unknown>) => {
    const g = group(str(body, 'logGroupName', GROUP_NAME)!);
    const days = body.retentionInDays;
    if (typeof days !== 'number' || !RETENTION_DAYS.includes(days)) throw invalid(`1 validation error detected: Value '${String(days)}' at 'retentionInDays' failed to satisfy constraint: Member must satisfy enum value set: [${RETENTION_DAYS.join(', ')}]`);
    g.retentionInDays = days;
    return {};
  };

  const createLogStream = (body: Record<string, unknown>) => {
    const g = group(str(body, 'logGroupName', GROUP_NAME)!);
    const name = str(body, 'logStreamName', STREAM_NAME)!;
    if (g.streams.has(name)) throw new Refusal('ResourceAlreadyExistsException', 'The specified log stream already exists');
    g.streams.set(name, { creationTime: now(), events: [] });
    return {};
  };

  const describeLogStreams = (body: Record<string, unknown>) => {
    const g = group(str(body, 'logGroupName', GROUP_NAME)!);
    const prefix = str(body, 'logStreamNamePrefix', STREAM_NAME, false) ?? '';
    const limit = limitOf(body);
    const names = [...g.streams.keys()].filter((n) => n.startsWith(prefix)).sort();
    return {
      logStreams: names.slice(0, limit).map((n) => ({ logStreamName: n, creationTime: g.streams.get(n)!.creationTime, arn: `arn:aws:logs:${sig.region}:000000000000:log-group:x:log-stream:${n}`, storedBytes: 0 })),
      ...(names.length > limit ? { nextToken: 'next' } : {}),
    };
  };

  const describeLogGroups = (body: Record<string, unknown>) => {
    const prefix = str(body, 'logGroupNamePrefix', GROUP_NAME, false) ?? '';
    const limit = limitOf(body);
    const names = [...groups.keys()].filter((n) => n.startsWith(prefix)).sort();
    return {
      logGroups: names.slice(0, limit).map((n) => ({ logGroupName: n, creationTime: groups.get(n)!.creationTime, arn: `arn:aws:logs:${sig.region}:000000000000:log-group:${n}:*`, storedBytes: 0, metricFilterCount: 0 })),
      ...(names.length > limit ? { nextToken: 'next' } : {}),
    };
  };

  const ops: Record<string, (body: Record<string, unknown>) => unknown> = {
    PutLogEvents: putLogEvents,
    CreateLogGroup: createLogGroup,
    CreateLogStream: createLogStream,
    DescribeLogStreams: describeLogStreams,
    DescribeLogGroups: describeLogGroups,
    PutRetentionPolicy: putRetentionPolicy,
  };

  const handle = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST' || req.path !== '/') return awsJsonError('UnknownOperationException', `${req.method} ${req.path}`, 404);
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.startsWith(LOGS_TARGET_PREFIX) ? ops[target.slice(LOGS_TARGET_PREFIX.length)] : undefined;
    if (!op) return awsJsonError('UnknownOperationException', `unknown X-Amz-Target ${JSON.stringify(target)}`);
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type !== 'application/x-amz-json-1.1') return awsJsonError('SerializationException', `Content-Type must be application/x-amz-json-1.1, got ${JSON.stringify(type)}`);
    const auth = checkSigV4(req, sig);
    if (auth) return awsJsonError(auth.type, auth.message, auth.status);
    const decoded = decodeBody(req, ['gzip']);
    if (!decoded.ok) return awsJsonError('SerializationException', decoded.message);
    let body: unknown;
    try {
      body = JSON.parse(decoded.body.toString('utf8'));
    } catch {
      return awsJsonError('SerializationException', 'body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return awsJsonError('SerializationException', 'body must be a JSON object');
    try {
      const out = op(body as Record<string, unknown>);
      operations.push(target.slice(LOGS_TARGET_PREFIX.length));
      return json(200, out, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': crypto.randomUUID() });
    } catch (err) {
      if (err instanceof Refusal) return awsJsonError(err.type, err.message, err.status);
      throw err;
    }
  };

  const base = await startHttpPeer(handle);
  const peer = Object.assign(base, {
    groups,
    puts,
    operations,
    refusedEvents: 0,
    createGroup: (name: string) => void groups.set(name, { creationTime: now(), streams: new Map() }),
    createStream: (g: string, name: string) => {
      if (!groups.has(g)) peer.createGroup(g);
      groups.get(g)!.streams.set(name, { creationTime: now(), events: [] });
    },
    events: (g: string, s: string) => groups.get(g)?.streams.get(s)?.events ?? [],
  }) as CloudwatchLogsPeer;
  return peer;
}
