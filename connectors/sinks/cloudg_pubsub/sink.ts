/** The `cloudg_pubsub` sink (Vector's `gcp_pubsub`) as a composition of the request-sink skeleton. */
import type { OperatorFunction } from 'rxjs';
import type { ComponentContext, SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';
import { batchLimits } from '../../../operators/batch-by.js';
import { type CloudgAuth, SCOPES, createCloudgAuth } from '../../shared/cloudg/auth.js';
import { cloudgHealthcheck, cloudgVerdict, createCloudgService, isRetriableCloudgError, tokenTransport } from '../../shared/cloudg/service.js';
import type { HttpService } from '../../shared/http/service.js';
import { requestSink } from '../../shared/request-sink.js';
import type { CloudgPubsubConfig } from './config.js';
import { type EncodedMessage, createPubsubEncoder } from './encoder.js';
import { type PublishRequest, buildPublishRequest, publishedCount } from './request.js';

/** `<endpoint>/v1/projects/<project>/topics/<topic>`. */
export const topicUrl = (config: Pick<CloudgPubsubConfig, 'endpoint' | 'project' | 'topic'>): string =>
  `${config.endpoint.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(config.project)}/topics/${encodeURIComponent(config.topic)}`;

const service = (config: CloudgPubsubConfig, auth: CloudgAuth, ctx: Pick<ComponentContext, 'globals'>): HttpService =>
  createCloudgService(auth, { tls: config.tls, proxy: config.proxy, headers: { 'content-type': 'application/json', ...config.request.headers } }, ctx.globals);

/** Builds the sink; the credentials give their first token when the first request (or the health check) needs it. */
export function buildCloudgPubsubSink(config: CloudgPubsubConfig, ctx: SinkContext, env: NodeJS.ProcessEnv = process.env): OperatorFunction<EventBatch, Delivery> {
  const auth = createCloudgAuth(config, SCOPES.pubsub, env, tokenTransport(config, ctx.globals));
  const http = service(config, auth, ctx);
  const encoder = createPubsubEncoder(config, ctx.globals.log_schema);
  const url = auth.url(`${topicUrl(config)}:publish`);
  const byStatus = cloudgVerdict<PublishRequest>(auth);
  return requestSink<EncodedMessage, PublishRequest, HttpResponse>(
    {
      encode: encoder.encode,
      build: (items) => buildPublishRequest(items),
      send: (req, signal) => http.send({ method: 'POST', url, body: req.body }, signal),
      classify: (res, req) => {
        const verdict = byStatus(res);
        if (verdict.kind !== 'ok') return verdict;
        const n = publishedCount(res.body);
        if (n === undefined || n >= req.items.length) return verdict;
        return {
          kind: 'partial',
          delivered: req.events.slice(0, n),
          rest: buildPublishRequest(req.items.slice(n)),
          error: new Error(`${req.items.length - n} of ${req.items.length} messages were not published`),
        };
      },
      isRetriableError: isRetriableCloudgError,
      close: async () => {
        await http.close();
        await auth.close();
      },
    },
    { limits: batchLimits(config.batch), request: config.request, rejectOversize: true },
    ctx,
  );
}

/** As Vector checks: `GET` the topic; 403 "forbidden", 404 "topic not found"; never retried. */
export async function cloudgPubsubHealthcheck(config: CloudgPubsubConfig, ctx: Pick<ComponentContext, 'globals'>, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const auth = createCloudgAuth(config, SCOPES.pubsub, env, tokenTransport(config, ctx.globals));
  const http = service(config, auth, ctx);
  try {
    await cloudgHealthcheck(http, auth, { method: 'GET', url: topicUrl(config), notFound: 'topic not found', timeoutMs: config.request.timeout_secs * 1000 });
  } finally {
    await http.close();
    await auth.close();
  }
}
