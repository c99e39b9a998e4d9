/**
 * A strict CloudWatch metrics server (no emulator runs here) for the
 * `cloudw_monitor_metrics` sink. It speaks what the pinned @aws-sdk/client-cloudwatch sends:
 * awsJson 1.0, `X-Amz-Target: GraniteServiceVersion20100801.PutMetricData` with
 * `x-amzn-query-mode: true`, SigV4 with the service name `monitoring`, gzip bodies. The
 * PutMetricData rules of the API reference are enforced: a namespace of 1-255 characters not
 * starting with `AWS/`, 1-1,000 datums, names of 1-255 characters, ≤ 30 dimensions with names of
 * 1-255 and values of 1-1,024 characters, `Value` or `Values` (≤ 150, with `Counts` of the same
 * length) but not both, finite values within ±2^360, timestamps no older than 14 days nor more than
 * 2 h ahead, a body of ≤ 1 MiB. Errors come as the service's query-compatible JSON errors
 * (`__type` and the `x-amzn-query-error` header the SDK reads the code from). The older Query form
 * (`Action=PutMetricData&Version=2010-08-01&…`, form-encoded, XML answers) is accepted too, under
 * the same rules.
 */
import { type HttpPeer, type PeerRequest, type PeerResponse, decodeBody, json, startHttpPeer } from './http-peer.js';
import { type SigV4Check, checkSigV4 } from './sigv4-check.js';

/** One datum as stored. */
export interface StoredDatum {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Record<string, string>;
  /** Epoch ms, when the datum had a timestamp. */
  readonly timestamp: number | undefined;
  readonly value: number | undefined;
  readonly values: number[] | undefined;
  readonly counts: number[] | undefined;
}

/** How the server is set up. */
export interface CloudwatchMetricsOptions {
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Clock of the timestamp rules (epoch ms); default `Date.now`. */
  now?: () => number;
}

/** The running server and what it stored. */
export interface CloudwatchMetricsPeer extends HttpPeer {
  readonly datums: StoredDatum[];
  /** Every accepted PutMetricData call: its namespace, datum count and whether it came gzipped. */
  readonly calls: { namespace: string; datums: number; gzip: boolean }[];
}

/** The `X-Amz-Target` of PutMetricData in JSON 1.0. */
export const METRICS_TARGET = 'GraniteServiceVersion20100801.PutMetricData';
const MAX_DATUMS = 1000;
const MAX_DIMENSIONS = 30;
const MAX_VALUES = 150;
const MAX_BODY = 1_048_576;
const LIMIT = 2 ** 360;
const DAY_MS = 86_400_000;

/** A query-compatible JSON error: `__type` for JSON readers, the query code in the header. */
export const cloudwatchError = (type: string, code: string, message: string, status = 400): PeerResponse =>
  json(status, { __type: `com.amazonaws.cloudwatch#${type}`, message }, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${code};${status >= 500 ? 'Receiver' : 'Sender'}` });

class Refusal extends Error {
  constructor(
    readonly type: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
const invalid = (message: string) => new Refusal('InvalidParameterValueException', 'InvalidParameterValue', message);
const missing = (message: string) => new Refusal('MissingRequiredParameterException', 'MissingParameter', message);

const text = (v: unknown, at: string, max: number): string => {
  if (v === undefined || v === null) throw missing(`The parameter ${at} is required.`);
  if (typeof v !== 'string' || v.length < 1 || v.length > max) throw invalid(`The parameter ${at} must be a string of 1 to ${max} characters.`);
  return v;
};
const number = (v: unknown, at: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > LIMIT) throw invalid(`The value ${String(v)} for parameter ${at} is invalid.`);
  return v;
};

const QUERY_NS = 'http://monitoring.amazonaws.com/doc/2010-08-01/';
const xmlText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A Query-protocol error document. */
const queryError = (code: string, message: string, status: number): PeerResponse => ({
  status,
  body: `<ErrorResponse xmlns="${QUERY_NS}"><Error><Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${code}</Code><Message>${xmlText(message)}</Message></Error><RequestId>${crypto.randomUUID()}</RequestId></ErrorResponse>`,
  headers: { 'content-type': 'text/xml' },
});

/** The JSON shape of a Query-form PutMetricData (`MetricData.member.N.…` fields; ISO 8601 timestamps). */
function queryBody(form: URLSearchParams): Record<string, unknown> {
  const data: Record<string, unknown>[] = [];
  const at = (list: unknown[], i: number) => (list[i - 1] ??= {}) as Record<string, unknown>;
  const num = (v: string) => (v.trim() === '' ? Number.NaN : Number(v));
  for (const [key, value] of form) {
    const m = /^MetricData\.member\.(\d+)\.(.+)$/.exec(key);
    if (!m) continue;
    const d = at(data, Number(m[1]));
    const rest = m[2]!;
    const dim = /^Dimensions\.member\.(\d+)\.(Name|Value)$/.exec(rest);
    const list = /^(Values|Counts)\.member\.(\d+)$/.exec(rest);
    if (dim) at((d.Dimensions ??= []) as unknown[], Number(dim[1]))[dim[2]!] = value;
    else if (list) ((d[list[1]!] ??= []) as unknown[])[Number(list[2]) - 1] = num(value);
    else if (rest === 'Value') d.Value = num(value);
    else if (rest === 'Timestamp') d.Timestamp = Date.parse(value) / 1000;
    else d[rest] = value;
  }
  return { Namespace: form.get('Namespace') ?? undefined, MetricData: form.has('MetricData') || data.length > 0 ? data : undefined };
}

/** Starts the server on 127.0.0.1 (port 0). */
export async function startCloudwatchMetrics(options: CloudwatchMetricsOptions = {}): Promise<CloudwatchMetricsPeer> {
  const sig: SigV4Check = {
    service: 'monitoring',
    region: options.region ?? 'us-east-1',
    accessKeyId: options.accessKeyId ?? 'AKIDWEIRTEST',
    secretAccessKey: options.secretAccessKey ?? 'weir-test-secret',
  };
  const now = options.now ?? Date.now;
  const datums: StoredDatum[] = [];
  const calls: CloudwatchMetricsPeer['calls'] = [];

  const datum = (namespace: string, d: unknown, i: number): StoredDatum => {
    const at = `MetricData.member.${i + 1}`;
    if (typeof d !== 'object' || d === null) throw missing(`The parameter ${at} is required.`);
    const m = d as Record<string, unknown>;
    for (const k of Object.keys(m))
      if (!['MetricName', 'Dimensions', 'Timestamp', 'Value', 'Values', 'Counts', 'StatisticValues', 'Unit', 'StorageResolution'].includes(k)) throw invalid(`Unknown parameter ${at}.${k}.`);
    const name = text(m.MetricName, `${at}.MetricName`, 255);
    const dims: Record<string, string> = {};
    if (m.Dimensions !== undefined) {
      if (!Array.isArray(m.Dimensions)) throw invalid(`The parameter ${at}.Dimensions must be a list.`);
      if (m.Dimensions.length > MAX_DIMENSIONS) throw invalid(`The collection ${at}.Dimensions must not have a size greater than ${MAX_DIMENSIONS}.`);
      m.Dimensions.forEach((x: unknown, j) => {
        const dim = (x ?? {}) as Record<string, unknown>;
        const dn = text(dim.Name, `${at}.Dimensions.member.${j + 1}.Name`, 255);
        if (dn.startsWith(':')) throw invalid(`The value ${dn} for parameter ${at}.Dimensions.member.${j + 1}.Name is invalid.`);
        if (dn in dims) throw invalid(`The collection ${at}.Dimensions must not contain duplicate dimension names.`);
        dims[dn] = text(dim.Value, `${at}.Dimensions.member.${j + 1}.Value`, 1024);
      });
    }
    let timestamp: number | undefined;
    if (m.Timestamp !== undefined) {
      // JSON 1.0 timestamps are epoch seconds
      if (typeof m.Timestamp !== 'number') throw invalid(`The parameter ${at}.Timestamp must be a timestamp.`);
      timestamp = Math.round(m.Timestamp * 1000);
      const t = now();
      if (timestamp < t - 14 * DAY_MS || timestamp > t + 2 * 3_600_000) throw invalid(`The parameter ${at}.Timestamp must specify a time no more than two weeks in the past or two hours in the future.`);
    }
    const hasValue = m.Value !== undefined;
    const hasValues = m.Values !== undefined;
    if (hasValue && hasValues) throw new Refusal('InvalidParameterCombinationException', 'InvalidParameterCombination', `The parameters ${at}.Value and ${at}.Values are mutually exclusive.`);
    if (!hasValue && !hasValues && m.StatisticValues === undefined) throw missing(`The parameter ${at}.Value is required.`);
    const value = hasValue ? number(m.Value, `${at}.Value`) : undefined;
    let values: number[] | undefined;
    let counts: number[] | undefined;
    if (hasValues) {
      if (!Array.isArray(m.Values) || m.Values.length > MAX_VALUES) throw invalid(`The collection ${at}.Values must not have a size greater than ${MAX_VALUES}.`);
      values = m.Values.map((x, j) => number(x, `${at}.Values.member.${j + 1}`));
      if (m.Counts !== undefined) {
        if (!Array.isArray(m.Counts) || m.Counts.length !== values.length)
          throw new Refusal('InvalidParameterCombinationException', 'InvalidParameterCombination', `The parameters ${at}.Values and ${at}.Counts must be of the same size.`);
        counts = m.Counts.map((x, j) => {
          const c = number(x, `${at}.Counts.member.${j + 1}`);
          if (c < 0) throw invalid(`The value ${c} for parameter ${at}.Counts.member.${j + 1} is invalid.`);
          return c;
        });
      }
    }
    return { namespace, name, dimensions: dims, timestamp, value, values, counts };
  };

  const putMetricData = (body: Record<string, unknown>, gzip: boolean) => {
    const namespace = text(body.Namespace, 'Namespace', 255);
    if (namespace.startsWith('AWS/') || namespace.startsWith(':')) throw invalid(`The value ${namespace} for parameter Namespace is invalid.`);
    const data = body.MetricData;
    if (!Array.isArray(data) || data.length === 0) throw missing('The parameter MetricData is required.');
    if (data.length > MAX_DATUMS) throw invalid(`The collection MetricData must not have a size greater than ${MAX_DATUMS}.`);
    const parsed = data.map((d, i) => datum(namespace, d, i));
    datums.push(...parsed);
    calls.push({ namespace, datums: parsed.length, gzip });
    return {};
  };

  const handle = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST' || req.path !== '/') return cloudwatchError('UnknownOperationException', 'InvalidAction', `${req.method} ${req.path}`, 404);
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return handleQuery(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target !== METRICS_TARGET) return cloudwatchError('UnknownOperationException', 'InvalidAction', `unknown X-Amz-Target ${JSON.stringify(target)}`);
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type !== 'application/x-amz-json-1.0') return cloudwatchError('SerializationException', 'MalformedInput', `Content-Type must be application/x-amz-json-1.0, got ${JSON.stringify(type)}`);
    const auth = checkSigV4(req, sig);
    if (auth) return cloudwatchError(auth.type, auth.type.replace(/Exception$/, ''), auth.message, auth.status);
    if (req.raw.length > MAX_BODY) return cloudwatchError('RequestEntityTooLargeException', 'RequestEntityTooLarge', 'Request size exceeded 1048576 bytes', 413);
    const decoded = decodeBody(req, ['gzip']);
    if (!decoded.ok) return cloudwatchError('SerializationException', 'MalformedInput', decoded.message);
    if (decoded.body.length > MAX_BODY) return cloudwatchError('RequestEntityTooLargeException', 'RequestEntityTooLarge', 'Request size exceeded 1048576 bytes', 413);
    let body: unknown;
    try {
      body = JSON.parse(decoded.body.toString('utf8'));
    } catch {
      return cloudwatchError('SerializationException', 'MalformedInput', 'body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return cloudwatchError('SerializationException', 'MalformedInput', 'body must be a JSON object');
    try {
      return json(200, putMetricData(body as Record<string, unknown>, req.headers['content-encoding'] === 'gzip'), { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': crypto.randomUUID() });
    } catch (err) {
      if (err instanceof Refusal) return cloudwatchError(err.type, err.code, err.message);
      throw err;
    }
  };

  /** The Query form: the same datum rules, form fields in and XML out. */
  const handleQuery = (req: PeerRequest): PeerResponse => {
    const auth = checkSigV4(req, sig);
    if (auth) return queryError(auth.type.replace(/Exception$/, ''), auth.message, auth.status);
    const decoded = decodeBody(req, ['gzip']);
    if (!decoded.ok) return queryError('MalformedInput', decoded.message, 400);
    const form = new URLSearchParams(decoded.body.toString('utf8'));
    if (form.get('Action') !== 'PutMetricData') return queryError('InvalidAction', `unknown Action ${JSON.stringify(form.get('Action'))}`, 400);
    if (form.get('Version') !== '2010-08-01') return queryError('InvalidParameterValue', 'Version must be 2010-08-01', 400);
    try {
      putMetricData(queryBody(form), req.headers['content-encoding'] === 'gzip');
    } catch (err) {
      if (err instanceof Refusal) return queryError(err.code, err.message, 400);
      throw err;
    }
    return { status: 200, body: `<PutMetricDataResponse xmlns="${QUERY_NS}"><ResponseMetadata><RequestId>${crypto.randomUUID()}</RequestId></ResponseMetadata></PutMetricDataResponse>`, headers: { 'content-type': 'text/xml' } };
  };

  const base = await startHttpPeer(handle);
  return Object.assign(base, { datums, calls }) as CloudwatchMetricsPeer;
}
