/**
 * The answer of one SendMessageBatch call, entry by entry: entries the
 * service took are delivered; a failed entry is retried when the service was at fault and
 * rejected when the sender was (a bad body, a missing group id); only the retried ones are sent again.
 */
import type { SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { Event } from '../../../lib/event.js';
import type { Verdict } from '../../shared/request-sink.js';
import { type QueueRequest, narrowQueueRequest } from './request.js';

/** Failed entries of one answer that will not be sent again, with the first reason. */
export interface RefusedEntries {
  readonly events: Event[];
  readonly reason: string;
}

/**
 * Classifies an answer. Entries refused for the sender's fault are handed to `refuse` (they end
 * rejected) and dropped from `req`, so that an `ok` or `partial` verdict counts only what the
 * service took as delivered.
 */
export function classifyBatchAnswer(res: Pick<SendMessageBatchCommandOutput, 'Successful' | 'Failed'>, req: QueueRequest, refuse: (r: RefusedEntries) => void): Verdict<QueueRequest> {
  const failed = res.Failed ?? [];
  if (failed.length === 0 && (res.Successful?.length ?? 0) >= req.entries.length) return { kind: 'ok' };
  const ok = new Set<string>();
  for (const s of res.Successful ?? []) if (s.Id !== undefined) ok.add(s.Id);
  const senderFault = new Map<string, string>();
  const retriable = new Set<string>();
  let reason = '';
  for (const f of failed) {
    if (f.Id === undefined || ok.has(f.Id)) continue;
    const why = `${f.Code ?? 'unknown'}: ${f.Message ?? ''}`.trim();
    reason ||= why;
    if (f.SenderFault) senderFault.set(f.Id, why);
    else retriable.add(f.Id);
  }
  // an entry the answer does not mention was not confirmed: send it again (at least once)
  for (const e of req.entries) if (!ok.has(e.Id!) && !senderFault.has(e.Id!)) retriable.add(e.Id!);
  if (senderFault.size > 0) {
    const refused = narrowQueueRequest(req, new Set(senderFault.keys()));
    refuse({ events: refused.events, reason: senderFault.values().next().value as string });
    if (ok.size === 0 && retriable.size === 0) {
      req.events = [];
      return { kind: 'ok' };
    }
  }
  if (retriable.size === 0) {
    const delivered = narrowQueueRequest(req, ok);
    req.events = delivered.events;
    req.bytes = delivered.bytes;
    return { kind: 'ok' };
  }
  const delivered = narrowQueueRequest(req, ok).events;
  return { kind: 'partial', delivered, rest: narrowQueueRequest(req, retriable), error: new Error(`${retriable.size} of ${req.entries.length} messages failed (${reason || 'not confirmed'})`) };
}
