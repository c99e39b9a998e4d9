/**
 * Credentials of the `cloudw_*` components, looked up in Vector's documented order: the `auth`
 * keys, the `CLOUDW_*` variables (the SDK's `AWS_*` names also count; `CLOUDW_*` wins), the shared
 * credentials and config files with the profile, then the version-2 instance metadata service.
 * `auth.assume_role` then trades them for a role's at STS. Credentials that expire are looked up
 * again, in the same order, shortly before they do.
 *
 * The shared files are read by the SDK's `fromIni`, the role assumed by its `fromTemporaryCredentials`,
 * and the SDK's `memoize` keeps what was found. The keys and the variables are plain values (the SDK's
 * `fromEnv` reads only `process.env`, and the environment here is a parameter); the metadata client
 * stays weir's own, see {@link fromImds}.
 */
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import { access, constants } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CloudwAuth } from './options.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const providers = lazyModule<typeof import('@aws-sdk/credential-providers')>('@aws-sdk/credential-providers');
const smithyConfig = lazyModule<typeof import('@smithy/core/config')>('@smithy/core/config');
const httpHandler = lazyModule<typeof import('@smithy/node-http-handler')>('@smithy/node-http-handler');

type Env = Readonly<Record<string, string | undefined>>;

/** Credentials as the SDK clients take them. */
export interface CloudwCredentialIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
  readonly expiration?: Date | undefined;
}
/** A provider the SDK clients call before each request (SDK `AwsCredentialIdentityProvider`). */
export type CloudwCredentialProvider = () => Promise<CloudwCredentialIdentity>;

/** No source had credentials; `tried` says what each source lacked. */
export class CredentialsNotFoundError extends Error {
  override readonly name = 'CredentialsNotFoundError';
  constructor(readonly tried: readonly string[]) {
    super(`no credentials; tried: ${tried.join('; ')}`);
  }
}

/** A source had something, but not something weir can use (credential_process, a bad file). */
export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
}

/** Where `auth.assume_role` goes: the component's endpoint and region, unless `CLOUDW_ENDPOINT_URL_STS` says otherwise. */
export interface StsTarget {
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  /** The SDK request handler (TLS, proxy) of the component. */
  readonly requestHandler?: NodeHttpHandler | undefined;
}

/** Refresh this long before credentials expire (the SDK's own margin). */
const EXPIRY_MARGIN_MS = 5 * 60_000;
const DEFAULT_IMDS_ENDPOINT = 'http://169.254.169.254';
const IMDS_TOKEN_TTL_SECS = 21_600;
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** `CLOUDW_<name>`, else `AWS_<name>`; empty counts as unset. */
export function cloudwEnv(env: Env, name: string): string | undefined {
  for (const key of [`CLOUDW_${name}`, `AWS_${name}`]) {
    const val = env[key];
    if (val !== undefined && val !== '') return val;
  }
  return undefined;
}

/** The profile in effect: `auth.profile`, else `CLOUDW_PROFILE`/`AWS_PROFILE`, else `default`. */
const profileName = (auth: CloudwAuth, env: Env): string => auth.profile ?? cloudwEnv(env, 'PROFILE') ?? 'default';

interface Found {
  readonly creds?: CloudwCredentialIdentity;
  /** Why this source had none, for the "tried" list. */
  readonly miss?: string;
}

function fromConfigKeys(auth: CloudwAuth): Found {
  if (auth.access_key_id === undefined || auth.secret_access_key === undefined) return { miss: 'auth.access_key_id/auth.secret_access_key (not set)' };
  return { creds: { accessKeyId: auth.access_key_id, secretAccessKey: auth.secret_access_key, sessionToken: auth.session_token } };
}

function expirationOf(text: string | undefined, what: string): Date | undefined {
  if (text === undefined) return undefined;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new CredentialsError(`${what}: not an RFC 3339 time: "${text}"`);
  return d;
}

function fromEnvironment(env: Env): Found {
  // a pair comes from one prefix, so a CLOUDW_ id never meets an AWS_ secret
  for (const prefix of ['CLOUDW_', 'AWS_']) {
    const id = env[`${prefix}ACCESS_KEY_ID`];
    const secret = env[`${prefix}SECRET_ACCESS_KEY`];
    if (!id || !secret) continue;
    const token = env[`${prefix}SESSION_TOKEN`] || undefined;
    const expiration = expirationOf(env[`${prefix}CREDENTIAL_EXPIRATION`] || undefined, `${prefix}CREDENTIAL_EXPIRATION`);
    return { creds: { accessKeyId: id, secretAccessKey: secret, sessionToken: token, expiration } };
  }
  return { miss: 'CLOUDW_ACCESS_KEY_ID/CLOUDW_SECRET_ACCESS_KEY and AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (not set)' };
}

/** The shared files' paths: `auth.credentials_file`, the variables, else the per-user files. */
function sharedFilePaths(auth: CloudwAuth, env: Env): { credentials: string; config: string } {
  const home = env.HOME || homedir();
  return {
    credentials: auth.credentials_file ?? cloudwEnv(env, 'SHARED_CREDENTIALS_FILE') ?? join(home, '.aws', 'credentials'),
    config: cloudwEnv(env, 'CONFIG_FILE') ?? join(home, '.aws', 'config'),
  };
}

/** Whether a shared file is there; the SDK loader reads an absent and an unreadable file alike as empty. */
async function present(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new CredentialsError(`reading ${path}: ${(err as Error).message}`);
  }
}

async function fromSharedFiles(auth: CloudwAuth, env: Env): Promise<Found> {
  const profile = profileName(auth, env);
  const paths = sharedFilePaths(auth, env);
  const where = `shared credentials file ${paths.credentials} and config file ${paths.config}, profile "${profile}"`;
  const found = await Promise.all([present(paths.credentials), present(paths.config)]);
  if (!found.includes(true)) return { miss: `${where} (no such files)` };
  // Looked at before fromIni, which would run credential_process or assume role_arn itself; only
  // profiles with keys reach it. The config file's `[profile name]` arrives here as `name`.
  const init = { profile, filepath: paths.credentials, configFilepath: paths.config };
  const files = await smithyConfig().loadSharedConfigFiles({ ...init, ignoreCache: true });
  const sectionOf = (file: Record<string, Record<string, string | undefined>>) => (Object.hasOwn(file, profile) ? file[profile] : undefined);
  const sections = [
    [sectionOf(files.credentialsFile), paths.credentials],
    [sectionOf(files.configFile), paths.config],
  ] as const;
  for (const [section, file] of sections) {
    if (section?.credential_process !== undefined) {
      throw new CredentialsError(`profile "${profile}" in ${file} uses credential_process, which is not supported; give the keys in the file, the CLOUDW_* variables or auth.*`);
    }
  }
  for (const [section, file] of sections) {
    if (section?.role_arn !== undefined) throw new CredentialsError(`profile "${profile}" in ${file} names role_arn, which is not supported there; set auth.assume_role`);
  }
  const merged = { ...sections[1][0], ...sections[0][0] };
  if (!merged.aws_access_key_id || !merged.aws_secret_access_key) return { miss: `${where} (no keys for the profile)` };
  // ignoreCache off: fromIni parses the very text checked above, which the loader has just cached
  return { creds: await providers().fromIni({ ...init, ignoreCache: false })() };
}

interface ImdsOptions {
  readonly endpoint: string;
  readonly maxAttempts: number;
  readonly connectTimeoutMs: number;
  readonly readTimeoutMs: number;
}

/** One request to the metadata service, with its connect and read time limits. */
function imdsCall(
  o: ImdsOptions,
  method: string,
  path: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, o.endpoint);
    const req = httpRequest(url, { method, headers, signal, agent: false });
    const connectTimer = setTimeout(() => req.destroy(new Error(`connect timed out after ${o.connectTimeoutMs} ms`)), o.connectTimeoutMs);
    req.on('socket', (socket) => {
      const connected = () => {
        clearTimeout(connectTimer);
        socket.setTimeout(o.readTimeoutMs, () => req.destroy(new Error(`no answer within ${o.readTimeoutMs} ms`)));
      };
      if (socket.connecting) socket.once('connect', connected);
      else connected();
    });
    req.on('error', (err) => {
      clearTimeout(connectTimer);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(connectTimer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.end();
  });
}

class ImdsAbsent extends Error {}

/** IMDSv2: a session token (PUT), the role name, then the role's credentials. */
async function imdsOnce(o: ImdsOptions, signal: AbortSignal): Promise<CloudwCredentialIdentity> {
  const tokenRes = await imdsCall(o, 'PUT', '/latest/api/token', { 'x-aws-ec2-metadata-token-ttl-seconds': String(IMDS_TOKEN_TTL_SECS) }, signal);
  if (tokenRes.status !== 200) throw new Error(`token request answered ${tokenRes.status}`);
  const auth = { 'x-aws-ec2-metadata-token': tokenRes.body.trim() };
  const base = '/latest/meta-data/iam/security-credentials/';
  const roles = await imdsCall(o, 'GET', base, auth, signal);
  if (roles.status === 404) throw new ImdsAbsent('no instance role');
  if (roles.status !== 200) throw new Error(`role name request answered ${roles.status}`);
  const role = roles.body.split('\n')[0]?.trim();
  if (!role) throw new ImdsAbsent('no instance role');
  const res = await imdsCall(o, 'GET', base + encodeURIComponent(role), auth, signal);
  if (res.status !== 200) throw new Error(`credentials of role ${role} answered ${res.status}`);
  const doc = JSON.parse(res.body) as { Code?: string; AccessKeyId?: string; SecretAccessKey?: string; Token?: string; Expiration?: string };
  if (doc.Code !== undefined && doc.Code !== 'Success') throw new Error(`credentials of role ${role}: ${doc.Code}`);
  if (!doc.AccessKeyId || !doc.SecretAccessKey) throw new Error(`credentials of role ${role} lack AccessKeyId/SecretAccessKey`);
  return { accessKeyId: doc.AccessKeyId, secretAccessKey: doc.SecretAccessKey, sessionToken: doc.Token, expiration: expirationOf(doc.Expiration, 'instance metadata Expiration') };
}

/**
 * IMDSv2, in auth.imds.max_attempts whole attempts. This client stays weir's own: the SDK's
 * `fromInstanceMetadata` takes its endpoint only from `process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT`
 * or the process's config file (there is no option), so neither CLOUDW_EC2_METADATA_SERVICE_ENDPOINT
 * nor the environment given to {@link cloudwCredentials} could reach it; its `maxRetries` repeats the
 * role and credentials requests but never the token request, whose failure it answers with IMDSv1;
 * it has one socket `timeout` where weir has auth.imds.connect_timeout_seconds and
 * read_timeout_seconds; and it takes no abort signal, so auth.load_timeout_secs could not end a
 * stalled request.
 */
async function fromImds(auth: CloudwAuth, env: Env, signal: AbortSignal): Promise<Found> {
  if ((cloudwEnv(env, 'EC2_METADATA_DISABLED') ?? '').toLowerCase() === 'true') return { miss: 'instance metadata (disabled by CLOUDW_EC2_METADATA_DISABLED)' };
  const o: ImdsOptions = {
    endpoint: cloudwEnv(env, 'EC2_METADATA_SERVICE_ENDPOINT') ?? DEFAULT_IMDS_ENDPOINT,
    maxAttempts: auth.imds.max_attempts,
    connectTimeoutMs: auth.imds.connect_timeout_seconds * 1000,
    readTimeoutMs: auth.imds.read_timeout_seconds * 1000,
  };
  let last = '';
  for (let attempt = 1; attempt <= o.maxAttempts; attempt++) {
    if (signal.aborted) break;
    try {
      return { creds: await imdsOnce(o, signal) };
    } catch (err) {
      if (err instanceof ImdsAbsent) return { miss: `instance metadata ${o.endpoint} (${err.message})` };
      last = (err as Error).message;
    }
  }
  return { miss: `instance metadata ${o.endpoint} (${o.maxAttempts} attempts; ${last}; in containers the metadata hop limit may need to be 2)` };
}

/** One pass through the chain, in the spec's order. */
async function lookUp(auth: CloudwAuth, env: Env, signal: AbortSignal): Promise<CloudwCredentialIdentity> {
  const tried: string[] = [];
  for (const source of [async () => fromConfigKeys(auth), async () => fromEnvironment(env), () => fromSharedFiles(auth, env), () => fromImds(auth, env, signal)]) {
    const found = await source();
    if (found.creds) return found.creds;
    if (found.miss) tried.push(found.miss);
  }
  throw new CredentialsNotFoundError(tried);
}

/** The component's request handler with the abort signal of the lookup under way: fromTemporaryCredentials sends AssumeRole without one. */
function abortable(handler: NodeHttpHandler, signal: () => AbortSignal): Pick<NodeHttpHandler, 'handle' | 'updateHttpClientConfig' | 'httpHandlerConfigs'> {
  return {
    handle: (request, options) => handler.handle(request, { ...options, abortSignal: signal() }),
    updateHttpClientConfig: (key, value) => handler.updateHttpClientConfig(key, value),
    httpHandlerConfigs: () => handler.httpHandlerConfigs(),
  };
}

/**
 * `auth.assume_role`: the chain's credentials (`base`) traded at STS, at `CLOUDW_ENDPOINT_URL_STS`,
 * else the component's endpoint, else the region's. The chain runs first, so that finding nothing
 * stays a {@link CredentialsNotFoundError}; what STS answers is a {@link CredentialsError} naming the role.
 */
function assumeRole(auth: CloudwAuth, env: Env, target: StsTarget, base: CloudwCredentialProvider, signal: () => AbortSignal): CloudwCredentialProvider {
  const role = auth.assume_role as string;
  const endpoint = cloudwEnv(env, 'ENDPOINT_URL_STS') ?? target.endpoint;
  const provider = providers().fromTemporaryCredentials({
    params: {
      RoleArn: role,
      RoleSessionName: auth.session_name ?? cloudwEnv(env, 'ROLE_SESSION_NAME') ?? `weir-${Date.now()}`,
      ...(auth.external_id ? { ExternalId: auth.external_id } : {}),
    },
    masterCredentials: base,
    clientConfig: {
      region: auth.region ?? target.region ?? cloudwEnv(env, 'DEFAULT_REGION') ?? cloudwEnv(env, 'REGION') ?? 'us-east-1',
      ...(endpoint ? { endpoint } : {}),
      maxAttempts: 1,
      requestHandler: abortable(target.requestHandler ?? new (httpHandler().NodeHttpHandler)(), signal),
    },
    logger: quiet,
  });
  return async () => {
    await base();
    try {
      return await provider();
    } catch (err) {
      throw new CredentialsError(`auth.assume_role ${role}: ${(err as Error).message}`);
    }
  };
}

const expiring = (c: CloudwCredentialIdentity): boolean => c.expiration !== undefined && c.expiration.getTime() - EXPIRY_MARGIN_MS <= Date.now();
const expires = (c: CloudwCredentialIdentity): boolean => c.expiration !== undefined;

/** `work` within `auth.load_timeout_secs`; past it, the signal aborts what is under way. */
async function withinLoadTimeout<T>(auth: CloudwAuth, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new CredentialsError(`loading credentials took longer than auth.load_timeout_secs (${auth.load_timeout_secs} s)`));
    }, auth.load_timeout_secs * 1000);
  });
  try {
    return await Promise.race([work(abort.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The credential provider of one component: the chain (then assume_role) within
 * `auth.load_timeout_secs`, kept until shortly before the credentials expire; concurrent callers
 * share one lookup. Rejects with {@link CredentialsNotFoundError} naming every source tried.
 */
export function cloudwCredentials(auth: CloudwAuth, env: Env = process.env, target: StsTarget = {}): CloudwCredentialProvider {
  // the signal of the lookup under way; memoize runs one lookup at a time
  let signal = new AbortController().signal;
  const chain: CloudwCredentialProvider = () => lookUp(auth, env, signal);
  const load = auth.assume_role === undefined ? chain : assumeRole(auth, env, target, smithyConfig().memoize(chain, expiring, expires), () => signal);
  const provider = smithyConfig().memoize(
    () =>
      withinLoadTimeout(auth, (s) => {
        signal = s;
        return load();
      }),
    expiring,
    expires,
  );
  return () => provider();
}
