/**
 * The configuration every `cloudw_*` SDK client is made with: region, endpoint, the credential
 * chain, the SDK's own retries off (the skeleton's Fibonacci policy governs, as in Vector),
 * keep-alive agents with the component's TLS and proxy settings, and a logger that stays quiet.
 */
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import type { ComponentContext } from '../../../lib/component.js';
import { resolveProxy } from '../../../lib/net/proxy.js';
import { tlsConnectOptions } from '../../../lib/net/tls.js';
import { cloudwAgents } from './agents.js';
import { type CloudwCredentialProvider, cloudwCredentials, cloudwEnv } from './credentials.js';
import type { CloudwConnection } from './options.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const httpHandler = lazyModule<typeof import('@smithy/node-http-handler')>('@smithy/node-http-handler');

type Env = Readonly<Record<string, string | undefined>>;

/** Signing region when only `endpoint` is set (compatible services accept any). */
export const ENDPOINT_ONLY_REGION = 'us-east-1';

/**
 * A logger that stays quiet. It has no `info` or `error`: the SDK calls those optionally after every
 * call, with the input and output copied through its redaction filter first, which cost a fifth of
 * the sink's CPU time for nothing.
 */
const quiet = { debug() {}, warn() {}, trace() {} } as unknown as { debug(): void; info(): void; warn(): void; error(): void; trace(): void };

/** The config object for `new XxxClient(...)`; spread it and add service-specific keys (e.g. `forcePathStyle`). */
export interface CloudwClientConfig {
  readonly region: string;
  readonly endpoint?: string;
  readonly credentials: CloudwCredentialProvider;
  readonly maxAttempts: 1;
  readonly requestHandler: NodeHttpHandler;
  readonly logger: typeof quiet;
}

/** Region in effect: `region`, `auth.region`, `CLOUDW_DEFAULT_REGION`/`CLOUDW_REGION` (and the `AWS_` names), else the endpoint-only default. */
export function cloudwRegion(options: Pick<CloudwConnection, 'region' | 'auth'>, env: Env = process.env): string {
  return options.region ?? options.auth.region ?? cloudwEnv(env, 'DEFAULT_REGION') ?? cloudwEnv(env, 'REGION') ?? ENDPOINT_ONLY_REGION;
}

/** The request handler alone (keep-alive agents, TLS, proxy); TLS files are read here, so bad ones fail at build. */
export function cloudwRequestHandler(options: Pick<CloudwConnection, 'tls' | 'proxy'>, ctx: Pick<ComponentContext, 'globals'>, env: Env = process.env): NodeHttpHandler {
  const { httpAgent, httpsAgent } = cloudwAgents(tlsConnectOptions(options.tls ?? undefined), resolveProxy(options.proxy, ctx.globals.proxy, env));
  return new (httpHandler().NodeHttpHandler)({ httpAgent, httpsAgent });
}

/**
 * The pinned SDK runs on Node 20; its notice that later SDK releases will not is for whoever
 * upgrades the pin, not for the daemon's log. Set before the first client is made.
 */
export function quietSdkNotices(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** Builds the client config; credentials are looked up at the first request (or the health check), not here. */
export function cloudwClientConfig(options: CloudwConnection, ctx: Pick<ComponentContext, 'globals'>, env: Env = process.env): CloudwClientConfig {
  quietSdkNotices();
  const region = cloudwRegion(options, env);
  const requestHandler = cloudwRequestHandler(options, ctx, env);
  const credentials = cloudwCredentials(options.auth, env, { endpoint: options.endpoint, region, requestHandler });
  return {
    region,
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    credentials,
    maxAttempts: 1,
    requestHandler,
    logger: quiet,
  };
}
