/**
 * Signature Version 4 of one HTTP request (header form), for the components that call a cloud
 * service over plain HTTP instead of through an SDK client (the remote-write sink to a managed
 * Prometheus service, `aps`). Written from the published algorithm: a canonical request (method,
 * path with each segment URI-escaped, sorted query, sorted lower-case headers, the body's SHA-256),
 * the string to sign over the date, scope and that request's hash, and a key derived from the
 * secret by HMAC over date, region, service and `aws4_request`.
 */
import { createHash, createHmac } from 'node:crypto';
import type { CloudwCredentialIdentity } from './credentials.js';

/** What is signed. */
export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  /** The headers that will be sent; `host` is added from the URL. */
  readonly headers: Record<string, string>;
  readonly body: Buffer | undefined;
}

const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 escaping (encodeURIComponent leaves `!'()*` alone). */
const escape = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `20240501T100000Z` and `20240501`. */
function amzDates(ms: number): { amzDate: string; dateStamp: string } {
  const iso = new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { amzDate: iso, dateStamp: iso.slice(0, 8) };
}

/** The headers to add: `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` (temporary credentials) and `authorization`. */
export function signV4(req: SignableRequest, creds: CloudwCredentialIdentity, region: string, service: string, nowMs: number): Record<string, string> {
  const url = new URL(req.url);
  const { amzDate, dateStamp } = amzDates(nowMs);
  const payloadHash = sha256Hex(req.body ?? '');
  const added: Record<string, string> = { 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
  if (creds.sessionToken) added['x-amz-security-token'] = creds.sessionToken;
  const all = new Map<string, string>();
  for (const [k, v] of Object.entries(req.headers)) {
    const name = k.toLowerCase();
    // these change on the way (user-agent, a proxy's connection headers) or are the signature itself
    if (name === 'authorization' || name === 'user-agent' || name === 'connection' || name === 'content-length') continue;
    all.set(name, v.trim().replace(/\s+/g, ' '));
  }
  for (const [k, v] of Object.entries(added)) all.set(k, v);
  all.set('host', url.host);
  const names = [...all.keys()].sort();
  const canonicalHeaders = names.map((n) => `${n}:${all.get(n)}\n`).join('');
  const signedHeaders = names.join(';');
  // each segment of the (already percent-encoded) path escaped again, as services other than S3 expect
  const path = url.pathname.split('/').map(escape).join('/') || '/';
  const query = [...url.searchParams]
    .map(([k, v]) => [escape(k), escape(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = [req.method.toUpperCase(), path, query, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${dateStamp}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, dateStamp), region), service), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return { ...added, authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}` };
}
