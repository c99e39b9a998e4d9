/**
 * A loopback OAuth token endpoint and instance metadata server for the `cloudg_*` tests. The token
 * endpoint takes the JWT bearer grant (RFC 7523) the way Google's does: the assertion must be an
 * RS256 JWT signed by a key the peer knows for its `iss`, with the expected scope, `aud` equal to
 * the endpoint's own URL and a live `exp`; otherwise it answers 400 `invalid_grant`. Tokens it
 * issues are what the other cloudg peers accept.
 */
import { createPublicKey, createVerify, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HttpPeer, type PeerResponse, json, startHttpPeer } from './http-peer.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** An issued access token. */
export interface IssuedToken {
  readonly scope: string;
  /** ms since the epoch. */
  expiresAt: number;
  readonly via: 'jwt' | 'metadata';
}

/** A generated service account: its key file and the parts of it. */
export interface TestServiceAccount {
  readonly email: string;
  readonly keyId: string;
  readonly privateKeyPem: string;
  readonly publicKey: KeyObject;
  /** Writes a key file with `token_uri` and returns its path. */
  writeKeyFile(dir: string, tokenUri: string, name?: string): string;
}

/** A fresh RSA key pair as a service account (2048 bits, PKCS#8 PEM as Google's key files hold). */
export function generateServiceAccount(email = 'weir-test@weir-test.iam.gserviceaccount.com'): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyId = randomBytes(20).toString('hex');
  return {
    email,
    keyId,
    privateKeyPem,
    publicKey,
    writeKeyFile(dir, tokenUri, name = 'key.json') {
      const path = join(dir, name);
      const file = {
        type: 'service_account',
        project_id: 'weir-test',
        private_key_id: keyId,
        private_key: privateKeyPem,
        client_email: email,
        client_id: '100000000000000000000',
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: tokenUri,
      };
      writeFileSync(path, JSON.stringify(file, null, 2));
      return path;
    },
  };
}

export interface GoogleTokenPeer {
  readonly http: HttpPeer;
  /** The token endpoint, as a key file's `token_uri`. */
  readonly tokenUri: string;
  /** host:port, as `CLOUDG_METADATA_HOST`. */
  readonly metadataHost: string;
  /** Every token issued. */
  readonly issued: Map<string, IssuedToken>;
  /** Decoded payloads of the assertions accepted. */
  readonly assertions: Record<string, unknown>[];
  /** Reasons of the grants refused, in order. */
  readonly refusals: string[];
  /** Lifetime of the tokens issued from now on, in seconds (default 3600). */
  expiresIn: number;
  /** The `aud` an assertion must carry: `tokenUri` unless the endpoint is reached through a front (TLS). */
  audience: string;
  /** Service accounts whose signature is accepted (by client email). */
  trust(account: { email: string; publicKey: KeyObject | string }): void;
  /** Whether `authorization` carries a live token issued for `scope`. */
  check(authorization: string | undefined, scope: string): 'ok' | 'missing' | 'invalid' | 'expired';
  /** Makes a token already issued expire now (what a service then refuses). */
  expire(token: string): void;
  close(): Promise<void>;
}

const b64url = (s: string): Buffer => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');

/** Starts the peer on 127.0.0.1, port 0. */
export async function startGoogleTokenPeer(): Promise<GoogleTokenPeer> {
  const keys = new Map<string, KeyObject>();
  const issued = new Map<string, IssuedToken>();
  const assertions: Record<string, unknown>[] = [];
  const refusals: string[] = [];
  const state = { expiresIn: 3600, tokenUri: '', audience: '' };
  const issue = (scope: string, via: IssuedToken['via']): PeerResponse => {
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    issued.set(token, { scope, expiresAt: Date.now() + state.expiresIn * 1000, via });
    return json(200, { access_token: token, expires_in: state.expiresIn, token_type: 'Bearer' });
  };
  const refuse = (reason: string): PeerResponse => {
    refusals.push(reason);
    return json(400, { error: 'invalid_grant', error_description: reason });
  };
  const grant = (raw: Buffer): PeerResponse => {
    const form = new URLSearchParams(raw.toString('utf8'));
    if (form.get('grant_type') !== GRANT) return json(400, { error: 'unsupported_grant_type', error_description: `grant_type must be ${GRANT}` });
    const assertion = form.get('assertion') ?? '';
    const parts = assertion.split('.');
    if (parts.length !== 3) return refuse('Invalid JWT: not three parts');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(b64url(parts[0]!).toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(b64url(parts[1]!).toString('utf8')) as Record<string, unknown>;
    } catch {
      return refuse('Invalid JWT: not JSON');
    }
    if (header.alg !== 'RS256') return refuse(`Invalid JWT: alg ${String(header.alg)}`);
    const key = keys.get(String(claims.iss));
    if (!key) return refuse(`Invalid JWT: unknown issuer ${String(claims.iss)}`);
    const ok = createVerify('RSA-SHA256').update(`${parts[0]}.${parts[1]}`).verify(key, b64url(parts[2]!));
    if (!ok) return refuse('Invalid JWT Signature.');
    if (claims.aud !== state.audience) return refuse(`Invalid JWT: aud ${String(claims.aud)} is not ${state.audience}`);
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number' || claims.exp <= now) return refuse('Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    if (typeof claims.iat !== 'number' || claims.iat > now + 60 || claims.exp - claims.iat > 3600) return refuse('Invalid JWT: iat/exp out of range');
    if (typeof claims.scope !== 'string' || claims.scope === '') return refuse('Invalid JWT: no scope');
    assertions.push(claims);
    return issue(claims.scope, 'jwt');
  };
  const http = await startHttpPeer((req) => {
    if (req.method === 'POST' && req.path === '/token') return grant(req.raw);
    if (req.method === 'GET' && req.path === '/computeMetadata/v1/instance/service-accounts/default/token') {
      if (req.headers['metadata-flavor'] !== 'Google') return { status: 403, body: 'Missing Metadata-Flavor:Google header.' };
      const r = issue(req.query.get('scopes') ?? 'https://www.googleapis.com/auth/cloud-platform', 'metadata');
      return { ...r, headers: { ...r.headers, 'metadata-flavor': 'Google' } };
    }
    return { status: 404, body: 'Not Found' };
  });
  state.tokenUri = `${http.url}/token`;
  state.audience = state.tokenUri;
  return {
    http,
    tokenUri: state.tokenUri,
    metadataHost: `127.0.0.1:${http.port}`,
    issued,
    assertions,
    refusals,
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(s: number) {
      state.expiresIn = s;
    },
    get audience() {
      return state.audience;
    },
    set audience(a: string) {
      state.audience = a;
    },
    trust: (a) => keys.set(a.email, typeof a.publicKey === 'string' ? createPublicKey(a.publicKey) : a.publicKey),
    check(authorization, scope) {
      if (!authorization) return 'missing';
      const m = /^Bearer (\S+)$/.exec(authorization);
      const t = m ? issued.get(m[1]!) : undefined;
      if (!t || !t.scope.split(/[ ,]/).includes(scope)) return 'invalid';
      return t.expiresAt > Date.now() ? 'ok' : 'expired';
    },
    expire(token) {
      const t = issued.get(token);
      if (t) t.expiresAt = Date.now() - 1;
    },
    close: () => http.close(),
  };
}
