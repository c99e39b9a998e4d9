/**
 * The object store for the `cloudw_object_storage` tests: s3rver in-process on 127.0.0.1 (it
 * stores bodies, content type and encoding, storage class and `x-amz-meta-*`, and refuses an
 * unknown access key), and a recording proxy in front of it. s3rver keeps no tags, ACLs, grants
 * or encryption settings, so tests read those headers from the proxy's records; the proxy also
 * verifies the SigV4 signature (scope, signed headers, signature over the path as sent) and
 * injects the service's faults (503 SlowDown, 500 InternalError, resets, stalls).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver ships no types
// @ts-expect-error no declaration file
import S3rver from 's3rver';
import { type Fault, type HttpPeer, type PeerResponse, startHttpPeer } from './http-peer.js';
import { verifySigV4 } from './sigv4.js';

/** s3rver's only credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** A running s3rver. */
export interface S3Peer {
  readonly url: string;
  readonly directory: string;
  close(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 (a free port) with `buckets` created, in a fresh directory. */
export async function startS3(buckets: readonly string[]): Promise<S3Peer> {
  const directory = mkdtempSync(join(tmpdir(), 'weir-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const address = (await server.run()) as AddressInfo;
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    directory,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An injected answer with a status. */
type StatusFault = Exclude<Fault, number | string>;

/** The S3 error document. */
export function s3Error(status: number, code: string, message: string): StatusFault {
  return {
    status,
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>WEIRTEST</RequestId></Error>`,
    headers: { 'content-type': 'application/xml' },
  };
}
/** 503 SlowDown, the service's throttling answer. */
export const SLOW_DOWN = s3Error(503, 'SlowDown', 'Please reduce your request rate.');
/** 500 InternalError. */
export const INTERNAL_ERROR = s3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');

/** Hop-by-hop and length headers the proxy sets itself. */
const OWN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** Forwards one request unchanged (Host included, so the signature still matches) and relays the answer. */
function forward(target: URL, req: { method: string; path: string; query: URLSearchParams; headers: Record<string, string | string[] | undefined>; raw: Buffer }): Promise<PeerResponse> {
  return new Promise((resolve, reject) => {
    const qs = req.query.toString();
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.path + (qs ? `?${qs}` : ''), headers: { ...req.headers, 'content-length': String(req.raw.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (!OWN_HEADERS.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks), headers });
        });
        res.on('error', reject);
      },
    );
    out.on('error', reject);
    out.end(req.raw);
  });
}

/**
 * A recording proxy to `target`: every request is kept (`requests`), its SigV4 signature verified
 * for service `s3` and region `region` with s3rver's keys (a bad one gets the service's 403), then
 * forwarded unless a fault is injected.
 */
export async function startS3Proxy(target: string, region = 'us-east-1'): Promise<HttpPeer> {
  const to = new URL(target);
  return startHttpPeer(async (req) => {
    const query = req.query.toString();
    const r = verifySigV4(
      { method: req.method, url: query === '' ? req.path : `${req.path}?${query}`, headers: req.headers, body: req.raw },
      // S3 signs the path as sent, without a second encoding
      { service: 's3', region, keys: [S3RVER_CREDENTIALS], doubleEncodePath: false },
    );
    if (!r.ok) {
      const f = s3Error(403, r.code === 'UnrecognizedClientException' ? 'InvalidAccessKeyId' : 'SignatureDoesNotMatch', r.message);
      return { status: f.status, body: f.body, headers: f.headers };
    }
    return forward(to, req);
  });
}
