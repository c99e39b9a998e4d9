/**
 * Service-account key files: the JWT bearer exchange runs on
 * google-auth-library, but at the key file's own `token_uri`. The library posts to Google's token
 * URL and signs for it whatever the file says; private and air-gapped deployments need the file
 * honoured, so the assertion's audience and the request URL are both set to `token_uri`.
 */
import { readFileSync } from 'node:fs';
import type { JWT } from 'google-auth-library';
import { lazyModule } from '../../../lib/lazy-module.js';

const googleAuth = lazyModule<typeof import('google-auth-library')>('google-auth-library');

/** Where google-auth-library sends every service-account token request. */
const LIBRARY_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** The fields of a service-account key file weir reads. */
export interface ServiceAccountKey {
  readonly client_email: string;
  readonly private_key: string;
  readonly private_key_id?: string;
  readonly token_uri: string;
}

/** Reads and checks a key file; the error names the file and what is wrong with it. */
export function readServiceAccountKey(path: string): ServiceAccountKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read credentials file ${path}: ${(err as Error).message}`);
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`credentials file ${path} is not JSON: ${(err as Error).message}`);
  }
  if (json.type !== undefined && json.type !== 'service_account')
    throw new Error(`credentials file ${path} has type "${String(json.type)}"; only "service_account" key files are supported`);
  for (const field of ['client_email', 'private_key'] as const)
    if (typeof json[field] !== 'string' || json[field] === '') throw new Error(`credentials file ${path} has no ${field}`);
  const tokenUri = typeof json.token_uri === 'string' && json.token_uri !== '' ? json.token_uri : LIBRARY_TOKEN_URL;
  if (!URL.canParse(tokenUri)) throw new Error(`credentials file ${path}: token_uri "${tokenUri}" is not a URL`);
  return {
    client_email: json.client_email as string,
    private_key: json.private_key as string,
    ...(typeof json.private_key_id === 'string' ? { private_key_id: json.private_key_id } : {}),
    token_uri: tokenUri,
  };
}

/** A JWT client that exchanges its assertion at `key.token_uri`, audience included, through `fetchImplementation` when given. */
export function serviceAccountClient(key: ServiceAccountKey, scope: string, fetchImplementation?: typeof fetch): JWT {
  const jwt = new (googleAuth().JWT)({
    ...(fetchImplementation ? { transporterOptions: { fetchImplementation } } : {}),
    email: key.client_email,
    key: key.private_key,
    ...(key.private_key_id ? { keyId: key.private_key_id } : {}),
    scopes: [scope],
    // claims are spread after the library's own, so this audience replaces Google's
    additionalClaims: { aud: key.token_uri },
  });
  if (key.token_uri !== LIBRARY_TOKEN_URL) {
    jwt.transporter.interceptors.request.add({
      resolved: async (cfg) => {
        // gaxios has already turned the URL into a URL object and reads it as one later
        if (String(cfg.url) === LIBRARY_TOKEN_URL) cfg.url = new URL(key.token_uri);
        return cfg;
      },
    });
  }
  return jwt;
}
