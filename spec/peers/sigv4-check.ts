/**
 * The SigV4 gate of the strict CloudWatch servers: the `Authorization` header's shape, its
 * credential scope (access key, date, region, service, `aws4_request`), and the signature.
 * Answers the error the service would send, or undefined when the request may pass.
 */
import type { PeerRequest } from './http-peer.js';

/** What a server accepts: one key pair, one region, one service name. */
export interface SigV4Check {
  readonly service: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** Why a request was refused, in the service's terms. */
export interface SigV4Refusal {
  readonly type: string;
  readonly message: string;
}

const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** Checks one request against `expected`. */
export function checkSigV4(req: PeerRequest, expected: SigV4Check): SigV4Refusal | undefined {
  const header = String(req.headers.authorization ?? '');
  const m = AUTH.exec(header);
  if (!m) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, key, date, region, service, signed] = m;
  if (key !== expected.accessKeyId) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date!)) return { type: 'InvalidSignatureException', message: 'Credential should be scoped to a valid date.' };
  if (region !== expected.region) return { type: 'InvalidSignatureException', message: `Credential should be scoped to a valid region, not '${region}'.` };
  if (service !== expected.service) return { type: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${expected.service}'.` };
  const names = signed!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return { type: 'InvalidSignatureException', message: 'Signed headers must include host and x-amz-date.' };
  return undefined;
}
