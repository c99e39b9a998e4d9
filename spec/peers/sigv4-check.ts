/**
 * The SigV4 gate of the strict CloudWatch servers, on the shared verifier (sigv4.ts): the
 * `Authorization` header's shape, the credential scope (date, region, service) and the signature
 * over what arrived, with the error the service would send.
 */
import type { PeerRequest } from './http-peer.js';
import { verifySigV4 } from './sigv4.js';

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
  readonly status: number;
}

/** Checks one request against `expected`; undefined when it may pass. */
export function checkSigV4(req: PeerRequest, expected: SigV4Check): SigV4Refusal | undefined {
  const query = req.query.toString();
  const url = query === '' ? req.path : `${req.path}?${query}`;
  const r = verifySigV4(
    { method: req.method, url, headers: req.headers, body: req.raw },
    { service: expected.service, region: expected.region, keys: [{ accessKeyId: expected.accessKeyId, secretAccessKey: expected.secretAccessKey }] },
  );
  return r.ok ? undefined : { type: r.code, message: r.message, status: r.status };
}
