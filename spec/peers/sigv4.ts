/**
 * A verifier of cloud Signature Version 4 (`Authorization: AWS4-HMAC-SHA256 …`) for the strict
 * in-repo servers: it rebuilds the canonical request and the string to sign from what arrived on
 * the wire and checks the HMAC chain against the secret of the access key, the credential scope
 * (date, region, service), the signed headers and the session token. It answers with the error
 * codes and statuses the real services use, so a client sees what it would see in production.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A key pair the server accepts; `sessionToken` set means requests must carry it. */
export interface SigV4Key {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface SigV4Options {
  /** Signing name of the service: kinesis, logs, sqs, s3, monitoring, sts. */
  readonly service: string;
  /** The region the server is in; undefined accepts any region in the scope. */
  readonly region?: string;
  readonly keys: readonly SigV4Key[];
  /** S3 signs the path as sent; the other services encode it once more (default true). */
  readonly doubleEncodePath?: boolean;
  /** Largest clock difference accepted (the services allow 15 minutes). */
  readonly maxSkewMs?: number;
  /** The server's clock. */
  readonly now?: () => number;
}

/** What arrived: method, the request target as sent (path and query), headers, body. */
export interface SigV4Request {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export type SigV4Result =
  | { readonly ok: true; readonly accessKeyId: string; readonly region: string; readonly date: string }
  | { readonly ok: false; readonly status: number; readonly code: string; readonly message: string };

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters, `%XX` in upper case. */
export function uriEncode(s: string, keepSlash = false): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, '%20'));
  } catch {
    return s;
  }
};

/** The canonical URI: each segment of the path as sent, encoded again unless `doubleEncode` is false. */
function canonicalUri(path: string, doubleEncode: boolean): string {
  if (path === '') return '/';
  if (!doubleEncode) return path.split('/').map((seg) => uriEncode(safeDecode(seg))).join('/');
  return path.split('/').map((seg) => uriEncode(seg)).join('/');
}

/** The canonical query: decoded pairs re-encoded, sorted by key then value. */
function canonicalQuery(query: string): string {
  if (query === '') return '';
  const pairs = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      const k = eq < 0 ? p : p.slice(0, eq);
      const val = eq < 0 ? '' : p.slice(eq + 1);
      return [uriEncode(safeDecode(k)), uriEncode(safeDecode(val))] as const;
    })
    .filter(([k]) => k !== 'X-Amz-Signature');
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, val]) => `${k}=${val}`).join('&');
}

const headerValue = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const val = headers[name];
  if (val === undefined) return undefined;
  return Array.isArray(val) ? val.map((x) => x.trim().replace(/\s+/g, ' ')).join(',') : val.trim().replace(/\s+/g, ' ');
};

/** The signing key of the HMAC chain: date, region, service, "aws4_request". */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/** The canonical request and string to sign, as the verifier rebuilt them (for failure messages in tests). */
export function stringToSign(req: SigV4Request, signedHeaders: readonly string[], amzDate: string, scope: string, doubleEncodePath: boolean): { canonical: string; toSign: string } {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q + 1);
  const headerLines = signedHeaders.map((h) => `${h}:${headerValue(req.headers, h) ?? ''}\n`).join('');
  const payloadHash = headerValue(req.headers, 'x-amz-content-sha256') ?? sha256Hex(req.body);
  const canonical = [req.method.toUpperCase(), canonicalUri(path, doubleEncodePath), canonicalQuery(query), headerLines, signedHeaders.join(';'), payloadHash].join('\n');
  return { canonical, toSign: ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n') };
}

const fail = (status: number, code: string, message: string): SigV4Result => ({ ok: false, status, code, message });

/** Parses `20240102T030405Z`. */
function parseAmzDate(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/** Verifies the request's SigV4 `Authorization` header. */
export function verifySigV4(req: SigV4Request, opts: SigV4Options): SigV4Result {
  const auth = headerValue(req.headers, 'authorization');
  if (auth === undefined) return fail(400, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return fail(400, 'IncompleteSignatureException', `Authorization header is not a well-formed AWS4-HMAC-SHA256 header: ${auth}`);
  const [, credential = '', signed = '', signature = ''] = m;
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request') return fail(400, 'IncompleteSignatureException', `Credential should be scoped to a valid region, service and aws4_request: ${credential}`);
  const [accessKeyId = '', date = '', region = '', service = ''] = parts;
  if (service !== opts.service) return fail(400, 'InvalidSignatureException', `Credential should be scoped to correct service: '${opts.service}', not '${service}'`);
  if (opts.region !== undefined && region !== opts.region) return fail(400, 'InvalidSignatureException', `Credential should be scoped to a valid region, not '${region}'`);
  const amzDate = headerValue(req.headers, 'x-amz-date');
  if (amzDate === undefined) return fail(400, 'IncompleteSignatureException', 'x-amz-date header is missing');
  const when = parseAmzDate(amzDate);
  if (when === undefined) return fail(400, 'IncompleteSignatureException', `x-amz-date is not a basic ISO 8601 time: ${amzDate}`);
  if (!amzDate.startsWith(date)) return fail(400, 'InvalidSignatureException', `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${date}' != '${amzDate.slice(0, 8)}'`);
  const now = (opts.now ?? Date.now)();
  if (Math.abs(now - when) > (opts.maxSkewMs ?? 15 * 60_000)) return fail(400, 'InvalidSignatureException', 'Signature expired: the request time is too far from the server time');
  const signedHeaders = signed.split(';');
  if (!signedHeaders.includes('host')) return fail(400, 'InvalidSignatureException', "'Host' must be a signed header");
  if (signedHeaders.join(';') !== [...signedHeaders].sort().join(';')) return fail(400, 'InvalidSignatureException', 'SignedHeaders must be sorted');
  for (const h of signedHeaders) if (headerValue(req.headers, h) === undefined) return fail(400, 'InvalidSignatureException', `signed header ${h} is missing from the request`);
  const key = opts.keys.find((k) => k.accessKeyId === accessKeyId);
  if (!key) return fail(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  const token = headerValue(req.headers, 'x-amz-security-token');
  if (key.sessionToken !== undefined && token !== key.sessionToken) return fail(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  if (token !== undefined && !signedHeaders.includes('x-amz-security-token') && opts.service !== 's3') {
    return fail(400, 'InvalidSignatureException', 'x-amz-security-token must be signed');
  }
  const scope = `${date}/${region}/${service}/aws4_request`;
  const { canonical, toSign } = stringToSign(req, signedHeaders, amzDate, scope, opts.doubleEncodePath ?? true);
  const expected = createHmac('sha256', signingKey(key.secretAccessKey, date, region, service)).update(toSign, 'utf8').digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return fail(
      400,
      'InvalidSignatureException',
      `The request signature we calculated does not match the signature you provided.\n\nThe Canonical String for this request should have been\n'${canonical}'\n\nThe String-to-Sign should have been\n'${toSign}'\n`,
    );
  }
  return { ok: true, accessKeyId, region, date };
}

/** Signs a request the way a client does (for the verifier's own tests and hand-made requests). */
export function signSigV4(
  req: { method: string; url: string; headers: Record<string, string>; body: Buffer },
  key: SigV4Key,
  scope: { region: string; service: string; now?: Date },
): Record<string, string> {
  const now = scope.now ?? new Date();
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [k, val] of Object.entries(req.headers)) headers[k.toLowerCase()] = val;
  headers['x-amz-date'] = amzDate;
  if (key.sessionToken !== undefined) headers['x-amz-security-token'] = key.sessionToken;
  const signedHeaders = Object.keys(headers).sort();
  const credScope = `${date}/${scope.region}/${scope.service}/aws4_request`;
  const { toSign } = stringToSign({ method: req.method, url: req.url, headers, body: req.body }, signedHeaders, amzDate, credScope, scope.service !== 's3');
  const sig = createHmac('sha256', signingKey(key.secretAccessKey, date, scope.region, scope.service)).update(toSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${key.accessKeyId}/${credScope}, SignedHeaders=${signedHeaders.join(';')}, Signature=${sig}`;
  return headers;
}
