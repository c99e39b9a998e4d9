/**
 * A strict loopback server of the Cloud Storage XML API, written from Google's XML API reference
 * (no emulator speaks it here). It takes what weir's object sink sends and refuses what the
 * service refuses: `HEAD /<bucket>/`, `PUT /<bucket>/<object>` with Content-Length, `GET` of a
 * stored object, and resumable uploads (`POST` with `x-goog-resumable: start`, then `PUT`s with
 * `Content-Range` in whole 256 KiB chunks). Requests must carry `Authorization: Bearer` with a live
 * token the token peer issued for the storage scope (or the `key` an API key test allows).
 * Errors are XML `<Error><Code>…</Code><Message>…</Message></Error>` bodies.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { type HttpPeer, type PeerRequest, type PeerResponse, startHttpPeer } from './http-peer.js';
import type { GoogleTokenPeer } from './google-token.js';

const SCOPE = 'https://www.googleapis.com/auth/devstorage.read_write';
const ACLS = new Set(['authenticated-read', 'bucket-owner-full-control', 'bucket-owner-read', 'private', 'project-private', 'public-read', 'public-read-write']);
const CLASSES = new Set(['STANDARD', 'NEARLINE', 'COLDLINE', 'ARCHIVE', 'MULTI_REGIONAL', 'REGIONAL', 'DURABLE_REDUCED_AVAILABILITY']);
const QUANTUM = 256 * 1024;

/** An object as stored. */
export interface StoredObject {
  readonly bucket: string;
  readonly name: string;
  /** The bytes as uploaded (still gzip when Content-Encoding says so). */
  readonly raw: Buffer;
  /** The bytes with Content-Encoding undone. */
  readonly body: Buffer;
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly storageClass: string;
  readonly acl: string | undefined;
  /** `x-goog-meta-*` headers, by name without the prefix. */
  readonly metadata: Record<string, string>;
  /** How it was uploaded. */
  readonly via: 'put' | 'resumable';
}

export interface GcsPeer {
  readonly http: HttpPeer;
  readonly url: string;
  /** Objects by `<bucket>/<name>`, in the order written. */
  readonly objects: Map<string, StoredObject>;
  /** Buckets the peer has; others answer 404 NoSuchBucket. */
  readonly buckets: Set<string>;
  /** Buckets the token may not touch (403 AccessDenied). */
  readonly forbidden: Set<string>;
  /** An API key accepted as `?key=` (none by default). */
  apiKey: string | undefined;
  close(): Promise<void>;
}

const xmlError = (status: number, code: string, message: string, details?: string): PeerResponse => ({
  status,
  body: `<?xml version='1.0' encoding='UTF-8'?><Error><Code>${code}</Code><Message>${message}</Message>${details ? `<Details>${details}</Details>` : ''}</Error>`,
  headers: { 'content-type': 'application/xml; charset=UTF-8' },
});

interface Session {
  readonly bucket: string;
  readonly name: string;
  readonly headers: PeerRequest['headers'];
  chunks: Buffer[];
  stored: number;
}

/** Starts the peer; tokens are checked against `tokens`. */
export async function startGcs(tokens: GoogleTokenPeer, opts: { buckets?: string[] } = {}): Promise<GcsPeer> {
  const objects = new Map<string, StoredObject>();
  const buckets = new Set(opts.buckets ?? ['weir-bucket']);
  const forbidden = new Set<string>();
  const sessions = new Map<string, Session>();
  const state = { apiKey: undefined as string | undefined, url: '' };

  const authorize = (req: PeerRequest): PeerResponse | undefined => {
    const key = req.query.get('key');
    if (key !== null && req.headers.authorization === undefined) return key === state.apiKey ? undefined : xmlError(400, 'InvalidArgument', 'API key not valid. Please pass a valid API key.');
    const verdict = tokens.check(req.headers.authorization, SCOPE);
    if (verdict === 'missing') return xmlError(401, 'AuthenticationRequired', 'Authentication required.');
    if (verdict !== 'ok') return xmlError(401, 'AuthenticationRequired', 'Invalid Credentials', verdict === 'expired' ? 'The access token has expired.' : 'The access token is not valid.');
    return undefined;
  };

  const store = (bucket: string, name: string, headers: PeerRequest['headers'], raw: Buffer, via: StoredObject['via']): PeerResponse => {
    const enc = headers['content-encoding'];
    let body = raw;
    if (enc === 'gzip') {
      try {
        body = gunzipSync(raw);
      } catch {
        return xmlError(400, 'InvalidArgument', 'Content-Encoding gzip but the body is not gzip.');
      }
    }
    const metadata: Record<string, string> = {};
    for (const [k, val] of Object.entries(headers)) if (k.startsWith('x-goog-meta-') && typeof val === 'string') metadata[k.slice(12)] = val;
    objects.set(`${bucket}/${name}`, {
      bucket,
      name,
      raw,
      body,
      contentType: headers['content-type'],
      contentEncoding: typeof enc === 'string' ? enc : undefined,
      storageClass: (headers['x-goog-storage-class'] as string | undefined) ?? 'STANDARD',
      acl: headers['x-goog-acl'] as string | undefined,
      metadata,
      via,
    });
    return { status: 200, headers: { etag: `"${randomBytes(16).toString('hex')}"` } };
  };

  /** Header rules of a new object, shared by PUT and a resumable start. */
  const objectHeaderError = (req: PeerRequest): PeerResponse | undefined => {
    const acl = req.headers['x-goog-acl'];
    if (acl !== undefined && !ACLS.has(String(acl))) return xmlError(400, 'InvalidArgument', `Invalid argument: x-goog-acl ${String(acl)}.`);
    const cls = req.headers['x-goog-storage-class'];
    if (cls !== undefined && !CLASSES.has(String(cls))) return xmlError(400, 'InvalidStorageClass', `The storage class you specified is not valid: ${String(cls)}.`);
    return undefined;
  };

  const http = await startHttpPeer((req) => {
    const denied = authorize(req);
    if (denied) return req.method === 'HEAD' ? { status: denied.status } : denied;
    const [, bucket = '', ...rest] = req.path.split('/');
    const name = rest.map(decodeURIComponent).join('/');
    if (!buckets.has(bucket)) return req.method === 'HEAD' ? { status: 404 } : xmlError(404, 'NoSuchBucket', 'The specified bucket does not exist.');
    if (forbidden.has(bucket)) return req.method === 'HEAD' ? { status: 403 } : xmlError(403, 'AccessDenied', 'Access denied.', 'weir-test does not have storage.objects.create access to the Google Cloud Storage bucket.');
    if (req.method === 'HEAD' && name === '') return { status: 200 };
    if (name === '') return xmlError(400, 'InvalidArgument', 'An object name is required.');
    if (Buffer.byteLength(name) > 1024 || /[\r\n]/.test(name)) return xmlError(400, 'InvalidObjectName', 'The specified object name is not valid.');
    const uploadId = req.query.get('upload_id');
    if (req.method === 'GET') {
      const o = objects.get(`${bucket}/${name}`);
      if (!o) return xmlError(404, 'NoSuchKey', 'The specified key does not exist.');
      return { status: 200, body: o.raw, headers: { 'content-type': o.contentType ?? 'application/octet-stream', ...(o.contentEncoding ? { 'content-encoding': o.contentEncoding } : {}), 'x-goog-storage-class': o.storageClass } };
    }
    if (req.method === 'POST' && uploadId === null) {
      if (req.headers['x-goog-resumable'] !== 'start') return xmlError(400, 'InvalidArgument', 'POST object needs x-goog-resumable: start (or a form upload).');
      if (req.raw.length !== 0) return xmlError(400, 'InvalidArgument', 'A resumable upload start has an empty body.');
      const bad = objectHeaderError(req);
      if (bad) return bad;
      const id = randomBytes(12).toString('base64url');
      sessions.set(id, { bucket, name, headers: req.headers, chunks: [], stored: 0 });
      return { status: 201, headers: { location: `${state.url}${req.path}?upload_id=${id}` } };
    }
    if (req.method !== 'PUT') return xmlError(405, 'MethodNotAllowed', `${req.method} is not allowed here.`);
    if (req.headers['content-length'] === undefined) return xmlError(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
    if (uploadId !== null) {
      const s = sessions.get(uploadId);
      if (!s || s.bucket !== bucket || s.name !== name) return xmlError(404, 'NoSuchUpload', 'The requested upload was not found.');
      const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(String(req.headers['content-range'] ?? ''));
      if (!m) return xmlError(400, 'InvalidArgument', 'Content-Range bytes <first>-<last>/<total|*> is required.');
      const first = Number(m[1]);
      const last = Number(m[2]);
      if (first !== s.stored) return xmlError(400, 'InvalidArgument', `Content-Range starts at ${first}, the upload has ${s.stored} bytes.`);
      if (last - first + 1 !== req.raw.length) return xmlError(400, 'InvalidArgument', 'Content-Range does not match the body length.');
      if (m[3] === '*' && req.raw.length % QUANTUM !== 0) return xmlError(400, 'InvalidArgument', 'A chunk that is not the last must be a multiple of 256 KiB.');
      s.chunks.push(req.raw);
      s.stored += req.raw.length;
      if (m[3] === '*') return { status: 308, headers: { range: `bytes=0-${s.stored - 1}` } };
      if (Number(m[3]) !== s.stored) return xmlError(400, 'InvalidArgument', `total ${m[3]} but ${s.stored} bytes uploaded`);
      sessions.delete(uploadId);
      return store(bucket, name, s.headers, Buffer.concat(s.chunks), 'resumable');
    }
    const bad = objectHeaderError(req);
    if (bad) return bad;
    return store(bucket, name, req.headers, req.raw, 'put');
  });
  state.url = http.url;
  return {
    http,
    url: http.url,
    objects,
    buckets,
    forbidden,
    get apiKey() {
      return state.apiKey;
    },
    set apiKey(k: string | undefined) {
      state.apiKey = k;
    },
    close: () => http.close(),
  };
}
