/**
 * A strict InfluxDB 2.x write server for `tsdb_metrics` (generation 2) tests and benchmarks: no
 * real 2.x server installs here, so this peer answers the write API the way
 * InfluxDB 2 does. `POST /api/v2/write?org=&bucket=&precision=` with `Authorization: Token <t>`;
 * line protocol checked by {@link parseLineProtocol}; gzip bodies; errors in InfluxDB's JSON shape
 * (`{"code":"invalid","message":"..."}`). Points are stored per org and bucket for assertions.
 */
import { type HttpPeer, type PeerRequest, type PeerResponse, decodeBody, json, startHttpPeer } from './http-peer.js';
import { type FieldValue, type LinePoint, type Precision, parseLineProtocol } from './line-protocol.js';

export interface Influxdb2Options {
  /** The API token the server accepts; default `weir-token`. */
  token?: string;
  /** Organizations and the buckets each holds; default `{ weir: ['metrics'] }`. */
  orgs?: Record<string, string[]>;
  /** Largest accepted body after decompression, bytes (InfluxDB's default is 25 MB). */
  maxBodyBytes?: number;
}

/** A stored point with where it was written. */
export interface StoredPoint extends LinePoint {
  org: string;
  bucket: string;
  precision: Precision;
}

export interface Influxdb2Peer extends HttpPeer {
  readonly token: string;
  /** Every point written, in write order. */
  readonly points: StoredPoint[];
  /** The points of one measurement (optionally of one bucket). */
  pointsOf(measurement: string, bucket?: string): StoredPoint[];
  /** Forgets stored points and field types. */
  clear(): void;
}

const VERSION = 'v2.7.11';
const PRECISIONS = new Set(['ns', 'us', 'ms', 's']);

/** Starts the server on 127.0.0.1 (port 0). */
export async function startInfluxdb2(options: Influxdb2Options = {}): Promise<Influxdb2Peer> {
  const token = options.token ?? 'weir-token';
  const orgs = options.orgs ?? { weir: ['metrics'] };
  const maxBody = options.maxBodyBytes ?? 25_000_000;
  const points: StoredPoint[] = [];
  /** `org/bucket/measurement/field` -> type: a later write of another type is a conflict. */
  const fieldTypes = new Map<string, FieldValue['type']>();

  const write = (req: PeerRequest): PeerResponse => {
    if (req.method !== 'POST') return json(405, { code: 'method not allowed', message: `method ${req.method} not allowed` });
    const auth = String(req.headers.authorization ?? '');
    if (auth !== `Token ${token}`) return json(401, { code: 'unauthorized', message: 'unauthorized access' });
    const org = req.query.get('org') ?? '';
    if (org === '' && !req.query.get('orgID')) return json(400, { code: 'invalid', message: 'Please provide either orgID or org' });
    if (!(org in orgs)) return json(404, { code: 'not found', message: `organization name "${org}" not found` });
    const bucket = req.query.get('bucket') ?? '';
    if (bucket === '') return json(400, { code: 'invalid', message: 'Please provide bucket' });
    if (!orgs[org]!.includes(bucket)) return json(404, { code: 'not found', message: `bucket "${bucket}" not found` });
    const precision = (req.query.get('precision') ?? 'ns') as Precision;
    if (!PRECISIONS.has(precision)) return json(400, { code: 'invalid', message: 'invalid precision; valid precision units are ns, us, ms, and s' });
    const decoded = decodeBody(req, ['gzip']);
    if (!decoded.ok) return json(decoded.unsupported ? 415 : 400, { code: decoded.unsupported ? 'unsupported media type' : 'invalid', message: decoded.message });
    if (decoded.body.length > maxBody) return json(413, { code: 'request too large', message: `unable to read data: points batch is too large; max ${maxBody} bytes` });
    const body = decoded.body.toString('utf8');
    const { points: parsed, errors } = parseLineProtocol(body, { precision, unsigned: true });
    // a body with a bad line is refused whole: nothing of it is written
    if (errors.length > 0) return json(400, { code: 'invalid', message: errors.join('\n') });
    if (parsed.length === 0) return json(400, { code: 'invalid', message: 'writing requires points' });
    const conflicts: string[] = [];
    for (const p of parsed) {
      const conflict = Object.entries(p.fields).find(([name, v]) => {
        const known = fieldTypes.get(`${org}\u0000${bucket}\u0000${p.measurement}\u0000${name}`);
        return known !== undefined && known !== v.type;
      });
      if (conflict) {
        const [name, v] = conflict;
        const known = fieldTypes.get(`${org}\u0000${bucket}\u0000${p.measurement}\u0000${name}`);
        conflicts.push(`field type conflict: input field "${name}" on measurement "${p.measurement}" is type ${v.type}, already exists as type ${known}`);
        continue;
      }
      for (const [name, v] of Object.entries(p.fields)) fieldTypes.set(`${org}\u0000${bucket}\u0000${p.measurement}\u0000${name}`, v.type);
      points.push({ ...p, org, bucket, precision });
    }
    if (conflicts.length > 0) {
      return json(422, { code: 'unprocessable entity', message: `failure writing points to database: partial write: ${conflicts[0]} dropped=${conflicts.length}` });
    }
    return { status: 204 };
  };

  const peer = await startHttpPeer((req) => {
    switch (req.path) {
      case '/api/v2/write':
        return write(req);
      case '/health':
        return json(200, { name: 'influxdb', message: 'ready for queries and writes', status: 'pass', checks: [], version: VERSION, commit: 'weir-peer' });
      case '/ping':
        return { status: 204, headers: { 'x-influxdb-version': VERSION, 'x-influxdb-build': 'OSS' } };
      case '/ready':
        return json(200, { status: 'ready', started: new Date(0).toISOString(), up: '1s' });
      default:
        return json(404, { code: 'not found', message: 'path not found' });
    }
  });
  return Object.assign(peer, {
    token,
    points,
    pointsOf: (measurement: string, bucket?: string) => points.filter((p) => p.measurement === measurement && (bucket === undefined || p.bucket === bucket)),
    clear: () => {
      points.length = 0;
      fieldTypes.clear();
    },
  });
}
