/**
 * Credentials of the `cloudg_*` sinks, tried in this
 * order: `credentials_path`, `api_key`, `CLOUDG_APPLICATION_CREDENTIALS` (or its common name
 * `GOOGLE_APPLICATION_CREDENTIALS`), the instance service account. Tokens come from
 * google-auth-library, which refreshes them before they expire; a token the service refuses
 * (401) is dropped and fetched again.
 */
import type { OAuth2Client } from 'google-auth-library';
import type { TlsConfig } from '../../../lib/config/options/tls.js';
import { type HttpClient, createHttpClient } from '../../../lib/net/http-client.js';
import type { ProxySettings } from '../../../lib/net/proxy.js';
import { metadataClient, metadataHost } from './metadata.js';
import { readServiceAccountKey, serviceAccountClient } from './service-account.js';
import { clientFetch } from './token-fetch.js';
import type { CloudgAuthConfig } from './options.js';

/** OAuth scopes of the Pub/Sub and Cloud Storage APIs. */
export const SCOPES = {
  pubsub: 'https://www.googleapis.com/auth/pubsub',
  storage: 'https://www.googleapis.com/auth/devstorage.read_write',
} as const;

/** Where the credentials came from. */
export type CredentialSource = 'credentials_path' | 'api_key' | 'CLOUDG_APPLICATION_CREDENTIALS' | 'GOOGLE_APPLICATION_CREDENTIALS' | 'metadata';

/** The credentials of one sink, chosen once at build time. */
export interface CloudgAuth {
  readonly source: CredentialSource;
  /** What was looked at, in order, for error messages. */
  readonly tried: readonly string[];
  /** The request URL with `key=<api_key>` in API-key mode, else `url` unchanged. */
  url(url: string): string;
  /** `Authorization: Bearer <token>` (a fresh token when the cached one is about to expire), or none with an API key. */
  headers(): Promise<Record<string, string>>;
  /** Forgets the cached token, so that the next request fetches a new one (after a 401). */
  invalidate(): void;
  /** Obtains a token now; rejects naming the source and everything tried before it. */
  check(): Promise<void>;
  /** Closes the connections of token requests. */
  close(): Promise<void>;
}

/** How token requests to a key file's `token_uri` connect: the sink's `tls` and proxy settings. */
export interface TokenTransport {
  readonly tls?: TlsConfig | undefined;
  readonly proxy?: ProxySettings | undefined;
}

/**
 * Chooses the credentials by what is configured. A key file is read when the first token is
 * needed, so a file that cannot be read or used fails the health check (and the requests), naming it.
 */
export function createCloudgAuth(config: CloudgAuthConfig, scope: string, env: NodeJS.ProcessEnv = process.env, transport: TokenTransport = {}): CloudgAuth {
  const tried: string[] = [];
  const net: { client?: HttpClient } = {};
  const keyFile = (path: string) => () => {
    const key = readServiceAccountKey(path);
    net.client ??= createHttpClient({ tls: transport.tls, proxy: transport.proxy });
    return serviceAccountClient(key, scope, clientFetch(net.client));
  };
  if (config.credentials_path) return tokenAuth('credentials_path', tried, `credentials_path ${config.credentials_path}`, keyFile(config.credentials_path), net);
  tried.push('credentials_path (unset)');
  if (config.api_key) return apiKeyAuth(config.api_key, tried);
  tried.push('api_key (unset)');
  for (const name of ['CLOUDG_APPLICATION_CREDENTIALS', 'GOOGLE_APPLICATION_CREDENTIALS'] as const) {
    const path = env[name];
    if (path) return tokenAuth(name, tried, `${name}=${path}`, keyFile(path), net);
    tried.push(`${name} (unset)`);
  }
  const host = metadataHost(env);
  return tokenAuth('metadata', tried, `the instance service account at metadata server ${host}`, () => metadataClient(host, scope), net);
}

function apiKeyAuth(key: string, tried: string[]): CloudgAuth {
  return {
    source: 'api_key',
    tried,
    url: (u) => {
      // the key replaces the query string, as in Vector
      const url = new URL(u);
      url.search = `key=${encodeURIComponent(key)}`;
      return url.toString();
    },
    headers: async () => ({}),
    invalidate: () => undefined,
    check: async () => undefined,
    close: async () => undefined,
  };
}

function tokenAuth(source: CredentialSource, tried: string[], what: string, makeClient: () => OAuth2Client, net: { client?: HttpClient }): CloudgAuth {
  let client: OAuth2Client | undefined;
  const token = async (): Promise<string> => {
    try {
      client ??= makeClient();
      const { token: t } = await client.getAccessToken();
      if (!t) throw new Error('no access token in the answer');
      return t;
    } catch (err) {
      throw new CredentialsError(`no token from ${what}: ${(err as Error).message}`, [...tried, what], isPermanentTokenError(err));
    }
  };
  return {
    source,
    tried,
    url: (u) => u,
    headers: async () => ({ authorization: `Bearer ${await token()}` }),
    invalidate: () => {
      // an expiry in the past makes the library fetch again, whatever the source
      if (client) client.credentials = { ...client.credentials, expiry_date: 1 };
    },
    check: async () => {
      await token();
    },
    close: async () => {
      await net.client?.close();
    },
  };
}

/**
 * OAuth error codes of a token answer that the same request can never turn into a token (RFC 6749,
 * section 5.2): the key, the client or the scope is refused, not the moment.
 */
const PERMANENT_OAUTH_ERRORS: ReadonlySet<string> = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'invalid_scope', 'unsupported_grant_type']);

/** The OAuth `error` code of a token answer, whether the library parsed the JSON body or not. */
function oauthErrorCode(data: unknown): string | undefined {
  if (typeof data === 'string') {
    try {
      return oauthErrorCode(JSON.parse(data));
    } catch {
      return undefined;
    }
  }
  const code = (data as { error?: unknown } | null | undefined)?.error;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether a failed token fetch can never succeed with this configuration: the token endpoint (or
 * metadata server) answered 401 or 403, or named a refused key, client or scope (`invalid_grant`
 * for a key it does not know). Timeouts, resets and 5xx answers are not permanent.
 */
export function isPermanentTokenError(err: unknown): boolean {
  const res = (err as { response?: { status?: unknown; data?: unknown } } | null | undefined)?.response;
  if (res === undefined || res === null) return false;
  if (res.status === 401 || res.status === 403) return true;
  const code = oauthErrorCode(res.data);
  return code !== undefined && PERMANENT_OAUTH_ERRORS.has(code);
}

/**
 * No usable credentials; `tried` lists every source looked at, in order. `permanent`: the token
 * endpoint refused these credentials for good, so requests waiting on them are rejected, not retried.
 */
export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
  constructor(
    message: string,
    readonly tried: readonly string[],
    readonly permanent = false,
  ) {
    super(`${message} (tried: ${tried.join(', ')})`);
  }
}
