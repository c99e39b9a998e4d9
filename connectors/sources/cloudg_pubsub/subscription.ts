/**
 * The subscription's REST calls (the Pub/Sub v1 API): `pull`, `acknowledge` and
 * `modifyAckDeadline`, through the `cloudg_*` family's HTTP service, so credentials, `tls` and
 * `proxy` work as in the sinks. A non-2xx answer rejects with the status and the start of the body.
 */
import type { ComponentContext } from '../../../lib/component.js';
import { type CloudgAuth, SCOPES, createCloudgAuth } from '../../shared/cloudg/auth.js';
import { createCloudgService, tokenTransport } from '../../shared/cloudg/service.js';
import type { HttpService } from '../../shared/http/service.js';
import { HttpStatusError } from '../../shared/http/status.js';
import type { CloudgPubsubSourceConfig } from './config.js';

/** One message of a pull answer, as the REST API spells it. */
export interface ReceivedMessage {
  readonly ackId: string;
  readonly message?: {
    readonly data?: string;
    readonly attributes?: Record<string, string>;
    readonly messageId?: string;
    readonly publishTime?: string;
  };
}

/** Most messages asked for per pull (the service returns at most 1000). */
export const MAX_PULL_MESSAGES = 1000;
/** Most ack ids per acknowledge or modifyAckDeadline call, well under the service's 512 KB request limit. */
export const MAX_ACK_IDS = 1000;
/** Longest pull answer kept: 1000 messages of up to 10 MB in all, base64 and JSON around them. */
const MAX_PULL_BODY_CHARS = 64 * 1024 * 1024;

/** The calls on one subscription. */
export interface SubscriptionClient {
  /** Long-polls up to {@link MAX_PULL_MESSAGES}; `signal` cuts the wait (messages the service had handed out for the answer come back after the subscription's deadline). */
  pull(signal: AbortSignal): Promise<ReceivedMessage[]>;
  acknowledge(ackIds: readonly string[], signal: AbortSignal): Promise<void>;
  modifyAckDeadline(ackIds: readonly string[], seconds: number, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** `<endpoint>/v1/projects/<project>/subscriptions/<subscription>`. */
export const subscriptionUrl = (config: Pick<CloudgPubsubSourceConfig, 'endpoint' | 'project' | 'subscription'>): string =>
  `${config.endpoint.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(config.project)}/subscriptions/${encodeURIComponent(config.subscription)}`;

/** The client of the configured subscription; the credentials give their first token when the first call needs it. */
export function createSubscriptionClient(config: CloudgPubsubSourceConfig, ctx: Pick<ComponentContext, 'globals'>, env: NodeJS.ProcessEnv = process.env): SubscriptionClient {
  const auth: CloudgAuth = createCloudgAuth(config, SCOPES.pubsub, env, tokenTransport(config, ctx.globals));
  const http: HttpService = createCloudgService(auth, { tls: config.tls, proxy: config.proxy, headers: { 'content-type': 'application/json' } }, ctx.globals);
  const base = subscriptionUrl(config);
  const call = async (verb: string, body: unknown, signal: AbortSignal, maxBodyChars?: number): Promise<string> => {
    const res = await http.send({ method: 'POST', url: auth.url(`${base}:${verb}`), body: Buffer.from(JSON.stringify(body)), ...(maxBodyChars ? { maxBodyChars } : {}) }, signal);
    // a refused token is dropped, so the next call fetches a fresh one
    if (res.status === 401 && auth.source !== 'api_key') auth.invalidate();
    if (res.status < 200 || res.status > 299) throw new HttpStatusError(res.status, res.body);
    return res.body;
  };
  return {
    async pull(signal) {
      const body = await call('pull', { maxMessages: MAX_PULL_MESSAGES }, signal, MAX_PULL_BODY_CHARS);
      return (JSON.parse(body) as { receivedMessages?: ReceivedMessage[] }).receivedMessages ?? [];
    },
    async acknowledge(ackIds, signal) {
      await call('acknowledge', { ackIds }, signal);
    },
    async modifyAckDeadline(ackIds, seconds, signal) {
      await call('modifyAckDeadline', { ackIds, ackDeadlineSeconds: seconds }, signal);
    },
    async close() {
      await http.close();
      await auth.close();
    },
  };
}
