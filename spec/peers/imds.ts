/**
 * An instance metadata service, version 2 only: `PUT /latest/api/token` with a TTL header gives a
 * session token; the role name and its credentials are read with that token. Requests without a
 * valid token get 401, as on an instance that requires IMDSv2.
 */
import { randomUUID } from 'node:crypto';
import { type HttpPeer, type PeerRequest, type PeerResponse, json, startHttpPeer } from './http-peer.js';

export interface ImdsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly token: string;
  readonly expiration: Date;
}

export interface ImdsPeer extends HttpPeer {
  /** Credentials served for the role; a test may replace it (rotation). */
  credentials: ImdsCredentials;
}

const plain = (status: number, body: string): PeerResponse => ({ status, body, headers: { 'content-type': 'text/plain' } });

/** Starts the service; `role` undefined means an instance without a role (404 on the role list). */
export async function startImdsPeer(role: string | undefined, credentials: ImdsCredentials): Promise<ImdsPeer> {
  const tokens = new Set<string>();
  const base = '/latest/meta-data/iam/security-credentials/';
  let peer: ImdsPeer | undefined;
  const handle = (req: PeerRequest): PeerResponse => {
    if (req.path === '/latest/api/token') {
      if (req.method !== 'PUT') return plain(405, 'Method Not Allowed');
      const ttl = Number(req.headers['x-aws-ec2-metadata-token-ttl-seconds']);
      if (!Number.isInteger(ttl) || ttl < 1 || ttl > 21_600) return plain(400, 'Bad Request');
      const t = randomUUID();
      tokens.add(t);
      return { status: 200, body: t, headers: { 'content-type': 'text/plain', 'x-aws-ec2-metadata-token-ttl-seconds': String(ttl) } };
    }
    if (req.method !== 'GET') return plain(405, 'Method Not Allowed');
    if (!tokens.has(String(req.headers['x-aws-ec2-metadata-token'] ?? ''))) return plain(401, 'Unauthorized');
    if (req.path === base) return role === undefined ? plain(404, 'Not Found') : plain(200, role);
    if (role !== undefined && req.path === base + role) {
      const c = (peer as ImdsPeer).credentials;
      return json(200, { Code: 'Success', LastUpdated: new Date().toISOString(), Type: 'AWS-HMAC', AccessKeyId: c.accessKeyId, SecretAccessKey: c.secretAccessKey, Token: c.token, Expiration: c.expiration.toISOString() });
    }
    return plain(404, 'Not Found');
  };
  peer = Object.assign(await startHttpPeer(handle), { credentials });
  return peer;
}
