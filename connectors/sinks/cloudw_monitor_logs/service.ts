/**
 * The CloudWatch Logs calls of the sink on the official SDK client: one
 * PutLogEvents per call of a request; on ResourceNotFoundException the group and stream are looked
 * up (DescribeLogStreams), created as `create_missing_group` / `create_missing_stream` allow
 * (ResourceAlreadyExistsException counts as created: another writer won the race), and the call is
 * sent again. A created group gets `kms_key`, `tags` and, with `retention.enabled`, its retention
 * policy (Vector's options). Sequence tokens are not sent: the service ignores them.
 */
import { gzipSync } from 'node:zlib';
import type { CloudWatchLogsClient, RejectedLogEventsInfo } from '@aws-sdk/client-cloudwatch-logs';
import type { ComponentContext } from '../../../lib/component.js';
import { type CloudwClientConfig, cloudwClientConfig } from '../../shared/cloudw/client.js';
import type { CloudwMonitorLogsConfig } from './config.js';
import type { LogCall, LogsRequest } from './request.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const logsSdk = lazyModule<typeof import('@aws-sdk/client-cloudwatch-logs')>('@aws-sdk/client-cloudwatch-logs');

/** A group or stream is missing and the options forbid creating it: not worth another attempt. */
export class MissingDestinationError extends Error {
  override readonly name = 'MissingDestinationError';
}

/** The group and stream were just made, yet the call still found none: worth another attempt. */
export class DestinationNotReadyError extends Error {
  override readonly name = 'DestinationNotReadyError';
}

/** How far one send got: the calls accepted, and the error that stopped the rest. */
export interface PutOutcome {
  readonly done: number;
  readonly error?: unknown;
}

/** The calls the sink makes, on one client. */
export interface LogsService {
  /** Sends the calls of a request in order; stops at the first failure and says how far it got. */
  send(req: LogsRequest, signal: AbortSignal): Promise<PutOutcome>;
  /** As Vector checks: DescribeLogGroups with the group name as prefix. */
  healthcheck(signal: AbortSignal): Promise<void>;
  readonly config: CloudwClientConfig;
  close(): void;
}

const codeOf = (err: unknown): string | undefined => (err as { name?: string } | undefined)?.name;

/** Gzips every request body of the client and says so (`compression = "gzip"`); runs before signing. */
function gzipBodies(client: CloudWatchLogsClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const req = args.request as { body?: unknown; headers?: Record<string, string> };
      if (req.headers && (typeof req.body === 'string' || req.body instanceof Uint8Array)) {
        const body = gzipSync(req.body);
        req.body = body;
        req.headers['content-encoding'] = 'gzip';
        req.headers['content-length'] = String(body.length);
      }
      return next(args);
    },
    { step: 'build', name: 'weirGzipBody', priority: 'low' },
  );
}

/** Adds `request.headers` to PutLogEvents calls only (as Vector does); signed with the rest. */
function putHeaders(client: CloudWatchLogsClient, headers: Readonly<Record<string, string>>): void {
  const entries = Object.entries(headers);
  if (entries.length === 0) return;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const req = args.request as { headers?: Record<string, string> };
      if (req.headers && context.commandName === 'PutLogEventsCommand') for (const [k, v] of entries) req.headers[k.toLowerCase()] = v;
      return next(args);
    },
    { step: 'build', name: 'weirRequestHeaders' },
  );
}

/** Builds the client; TLS files are read here, so bad ones fail at build. */
export function createLogsService(
  config: CloudwMonitorLogsConfig,
  ctx: Pick<ComponentContext, 'globals' | 'log'>,
  hooks: { rejectedByService?(info: RejectedLogEventsInfo, req: LogsRequest): void } = {},
): LogsService {
  const clientConfig = cloudwClientConfig(config, ctx);
  const client = new (logsSdk().CloudWatchLogsClient)({ ...clientConfig });
  putHeaders(client, config.request.headers);
  if (config.compression === 'gzip') gzipBodies(client);

  /** Makes sure the group and stream exist, creating what the options allow. */
  const ensure = async (group: string, stream: string, abortSignal: AbortSignal): Promise<void> => {
    const ignoreExisting = (err: unknown) => {
      if (codeOf(err) !== 'ResourceAlreadyExistsException') throw err;
    };
    const createStream = () => client.send(new (logsSdk().CreateLogStreamCommand)({ logGroupName: group, logStreamName: stream }), { abortSignal }).then(undefined, ignoreExisting);
    let found: boolean;
    try {
      // streams are listed by name, so the exact name comes first among those it prefixes
      const out = await client.send(new (logsSdk().DescribeLogStreamsCommand)({ logGroupName: group, logStreamNamePrefix: stream, limit: 1 }), { abortSignal });
      found = out.logStreams?.[0]?.logStreamName === stream;
    } catch (err) {
      if (codeOf(err) !== 'ResourceNotFoundException') throw err;
      if (!config.create_missing_group) throw new MissingDestinationError(`log group ${JSON.stringify(group)} does not exist and create_missing_group is false`);
      ctx.log.info('Creating log group.', { group });
      await client.send(new (logsSdk().CreateLogGroupCommand)({ logGroupName: group, kmsKeyId: config.kms_key, tags: config.tags }), { abortSignal }).then(undefined, ignoreExisting);
      if (config.retention.enabled) await client.send(new (logsSdk().PutRetentionPolicyCommand)({ logGroupName: group, retentionInDays: config.retention.days! }), { abortSignal });
      // a new group has no streams: it gets its first one whatever create_missing_stream says
      ctx.log.info('Creating log stream.', { group, stream });
      await createStream();
      return;
    }
    if (found) return;
    if (!config.create_missing_stream) throw new MissingDestinationError(`log stream ${JSON.stringify(stream)} of group ${JSON.stringify(group)} does not exist and create_missing_stream is false`);
    ctx.log.info('Creating log stream.', { group, stream });
    await createStream();
  };

  const putCall = async (req: LogsRequest, call: LogCall, abortSignal: AbortSignal) => {
    const command = () =>
      client.send(new (logsSdk().PutLogEventsCommand)({ logGroupName: req.group, logStreamName: req.stream, logEvents: call.logEvents as { timestamp: number; message: string }[] }), { abortSignal });
    let out;
    try {
      out = await command();
    } catch (err) {
      if (codeOf(err) !== 'ResourceNotFoundException') throw err;
      await ensure(req.group, req.stream, abortSignal);
      try {
        out = await command();
      } catch (again) {
        // a group or stream made a moment ago may not be visible yet (the service is eventually consistent)
        if (codeOf(again) === 'ResourceNotFoundException') throw new DestinationNotReadyError(`log stream ${JSON.stringify(req.stream)} of group ${JSON.stringify(req.group)} not found right after it was created`);
        throw again;
      }
    }
    if (out.rejectedLogEventsInfo) hooks.rejectedByService?.(out.rejectedLogEventsInfo, req);
  };

  return {
    config: clientConfig,
    async send(req, signal) {
      for (let i = 0; i < req.calls.length; i++) {
        try {
          await putCall(req, req.calls[i]!, signal);
        } catch (error) {
          return { done: i, error };
        }
      }
      return { done: req.calls.length };
    },
    async healthcheck(abortSignal) {
      const dynamic = /\{\{|%/.test(config.group_name);
      const out = await client.send(new (logsSdk().DescribeLogGroupsCommand)(dynamic ? { limit: 1 } : { logGroupNamePrefix: config.group_name, limit: 1 }), { abortSignal });
      if (dynamic || config.create_missing_group) return;
      if (out.logGroups?.[0]?.logGroupName !== config.group_name) throw new Error(`log group ${JSON.stringify(config.group_name)} not found (and create_missing_group is false)`);
    },
    close: () => client.destroy(),
  };
}
