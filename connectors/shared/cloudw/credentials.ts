/**
 * Credentials of the `cloudw_*` components, looked up in the order of spec 01 §5.1: the `auth`
 * keys, the `CLOUDW_*` variables (the SDK's `AWS_*` names also count; `CLOUDW_*` wins), the shared
 * credentials and config files with the profile, then the version-2 instance metadata service.
 * `auth.assume_role` then trades them for a role's at STS. Credentials that expire are looked up
 * again, in the same order, shortly before they do.
 */
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CloudwAuth } from './options.js';

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
  readonly requestHandler?: unknown;
}

/** Refresh this long before credentials expire (the SDK's own margin). */
const EXPIRY_MARGIN_MS = 5 * 60_000;
const DEFAULT_IMDS_ENDPOINT = 'http://169.254.169.254';
const IMDS_TOKEN_TTL_SECS = 21_600;

/** `CLOUDW_<name>`, else `AWS_<name>`; empty counts as unset. */
export function cloudwEnv(env: Env, name: string): string | undefined {
  for (const key of [`CLOUDW_${name}`, `AWS_${name}`]) {
    const val = env[key];
    if (val !== undefined && val !== '') return val;
  }
  return undefined;
}

/** The profile in effect: `auth.profile`, else `CLOUDW_PROFILE`/`AWS_PROFILE`, else `default` (spec 01 §2.2). */
export const profileName = (auth: CloudwAuth, env: Env): string => auth.profile ?? cloudwEnv(env, 'PROFILE') ?? 'default';

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

/** Sections of an INI file: `[name]` → key → value (keys lowercased, `#`/`;` comments dropped). */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  // a key with no value opens sub-properties (`s3 =` then indented lines), which are not credentials
  let nested = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]]*?)\s*\]$/.exec(line);
    if (header) {
      const name = header[1] ?? '';
      current = sections.get(name) ?? new Map<string, string>();
      sections.set(name, current);
      nested = false;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0 || !current) continue;
    if (nested && /^\s/.test(raw)) continue;
    const value = line.slice(eq + 1).trim();
    nested = value === '';
    current.set(line.slice(0, eq).trim().toLowerCase(), value);
  }
  return sections;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CredentialsError(`reading ${path}: ${(err as Error).message}`);
  }
}

/** The shared files' paths: `auth.credentials_file`, the variables, else the per-user files. */
export function sharedFilePaths(auth: CloudwAuth, env: Env): { credentials: string; config: string } {
  const home = env.HOME || homedir();
  return {
    credentials: auth.credentials_file ?? cloudwEnv(env, 'SHARED_CREDENTIALS_FILE') ?? join(home, '.aws', 'credentials'),
    config: cloudwEnv(env, 'CONFIG_FILE') ?? join(home, '.aws', 'config'),
  };
}

async function fromSharedFiles(auth: CloudwAuth, env: Env): Promise<Found> {
  const profile = profileName(auth, env);
  const paths = sharedFilePaths(auth, env);
  const [credText, configText] = await Promise.all([readIfExists(paths.credentials), readIfExists(paths.config)]);
  // the credentials file names a profile `[name]`, the config file `[profile name]` (and `[default]`)
  const fromCred = credText === undefined ? undefined : parseIni(credText).get(profile);
  const configSections = configText === undefined ? undefined : parseIni(configText);
  const fromConfig = configSections?.get(`profile ${profile}`) ?? (profile === 'default' ? configSections?.get('default') : undefined);
  for (const [section, file] of [
    [fromCred, paths.credentials],
    [fromConfig, paths.config],
  ] as const) {
    if (section?.has('credential_process')) {
      throw new CredentialsError(`profile "${profile}" in ${file} uses credential_process, which is not supported; give the keys in the file, the CLOUDW_* variables or auth.*`);
    }
  }
  for (const [section, file] of [
    [fromCred, paths.credentials],
    [fromConfig, paths.config],
  ] as const) {
    const id = section?.get('aws_access_key_id');
    const secret = section?.get('aws_secret_access_key');
    if (id && secret) return { creds: { accessKeyId: id, secretAccessKey: secret, sessionToken: section?.get('aws_session_token') || undefined } };
    if (section?.has('role_arn')) throw new CredentialsError(`profile "${profile}" in ${file} names role_arn, which is not supported there; set auth.assume_role`);
  }
  const where = `shared credentials file ${paths.credentials} and config file ${paths.config}, profile "${profile}"`;
  if (credText === undefined && configText === undefined) return { miss: `${where} (no such files)` };
  return { miss: `${where} (no keys for the profile)` };
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

async function fromInstanceMetadata(auth: CloudwAuth, env: Env, signal: AbortSignal): Promise<Found> {
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
  for (const source of [async () => fromConfigKeys(auth), async () => fromEnvironment(env), () => fromSharedFiles(auth, env), () => fromInstanceMetadata(auth, env, signal)]) {
    const found = await source();
    if (found.creds) return found.creds;
    if (found.miss) tried.push(found.miss);
  }
  throw new CredentialsNotFoundError(tried);
}

/** The STS endpoint for assume_role: `CLOUDW_ENDPOINT_URL_STS`, else the component's endpoint, else the region's. */
function stsClientFor(auth: CloudwAuth, env: Env, target: StsTarget, base: CloudwCredentialIdentity): STSClient {
  const endpoint = cloudwEnv(env, 'ENDPOINT_URL_STS') ?? target.endpoint;
  const region = auth.region ?? target.region ?? cloudwEnv(env, 'DEFAULT_REGION') ?? cloudwEnv(env, 'REGION') ?? 'us-east-1';
  return new STSClient({
    region,
    ...(endpoint ? { endpoint } : {}),
    credentials: base,
    maxAttempts: 1,
    ...(target.requestHandler ? { requestHandler: target.requestHandler as never } : {}),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
}

async function assumeRole(auth: CloudwAuth, env: Env, target: StsTarget, base: CloudwCredentialIdentity, signal: AbortSignal): Promise<CloudwCredentialIdentity> {
  const role = auth.assume_role as string;
  const sts = stsClientFor(auth, env, target, base);
  try {
    const out = await sts.send(
      new AssumeRoleCommand({
        RoleArn: role,
        RoleSessionName: auth.session_name ?? cloudwEnv(env, 'ROLE_SESSION_NAME') ?? `weir-${Date.now()}`,
        ...(auth.external_id ? { ExternalId: auth.external_id } : {}),
      }),
      { abortSignal: signal },
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey) throw new CredentialsError(`auth.assume_role ${role}: STS answered without credentials`);
    return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: c.Expiration };
  } catch (err) {
    if (err instanceof CredentialsError) throw err;
    throw new CredentialsError(`auth.assume_role ${role}: ${(err as Error).message}`);
  } finally {
    sts.destroy();
  }
}

const isFresh = (c: CloudwCredentialIdentity, now: number): boolean => c.expiration === undefined || c.expiration.getTime() - EXPIRY_MARGIN_MS > now;

/**
 * The credential provider of one component: the chain (then assume_role) within
 * `auth.load_timeout_secs`, memoized until shortly before the credentials expire; concurrent
 * callers share one lookup. Rejects with {@link CredentialsNotFoundError} naming every source tried.
 */
export function cloudwCredentials(auth: CloudwAuth, env: Env = process.env, target: StsTarget = {}): CloudwCredentialProvider {
  let cached: CloudwCredentialIdentity | undefined;
  let pending: Promise<CloudwCredentialIdentity> | undefined;
  const load = async (): Promise<CloudwCredentialIdentity> => {
    const abort = new AbortController();
    const limitMs = auth.load_timeout_secs * 1000;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new CredentialsError(`loading credentials took longer than auth.load_timeout_secs (${auth.load_timeout_secs} s)`));
      }, limitMs);
    });
    try {
      const work = (async () => {
        const base = await lookUp(auth, env, abort.signal);
        return auth.assume_role === undefined ? base : assumeRole(auth, env, target, base, abort.signal);
      })();
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  };
  return () => {
    if (cached && isFresh(cached, Date.now())) return Promise.resolve(cached);
    pending ??= load().then(
      (c) => {
        cached = c;
        pending = undefined;
        return c;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}
