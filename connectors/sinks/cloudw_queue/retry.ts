/**
 * The answer of one SendMessageBatch call, entry by entry (the SQS SendMessageBatch API
 * reference): entries the service took are delivered; a failed entry is retried when the service
 * was at fault and refused for good when the sender was (a bad body, a missing group id); only the
 * retried ones are sent again.
 */
import type { SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { Event } from '../../../lib/event.js';
import type { Verdict } from '../../shared/request-sink.js';
import { type QueueRequest, narrowQueueRequest } from './request.js';

/** Classifies an answer; pure. Entries refused for the sender's fault are the verdict's `refused`. */
export function classifyBatchAnswer(res: Pick<SendMessageBatchCommandOutput, 'Successful' | 'Failed'>, req: QueueRequest): Verdict<QueueRequest> {
  const failed = res.Failed ?? [];
  if (failed.length === 0 && (res.Successful?.length ?? 0) >= req.entries.length) return { kind: 'ok' };
  const ok = new Set<string>();
  for (const s of res.Successful ?? []) if (s.Id !== undefined) ok.add(s.Id);
  const senderFault = new Set<string>();
  let refusedWhy = '';
  let retriedWhy = '';
  for (const f of failed) {
    if (f.Id === undefined || ok.has(f.Id)) continue;
    const why = `${f.Code ?? 'unknown'}: ${f.Message ?? ''}`.trim();
    if (f.SenderFault) {
      senderFault.add(f.Id);
      refusedWhy ||= why;
    } else retriedWhy ||= why;
  }
  // an entry the answer does not mention was not confirmed: send it again (at least once)
  const delivered: Event[] = [];
  const refused: Event[] = [];
  const retried = new Set<string>();
  for (let i = 0; i < req.entries.length; i++) {
    const id = req.entries[i]!.Id!;
    if (ok.has(id)) delivered.push(req.events[i]!);
    else if (senderFault.has(id)) refused.push(req.events[i]!);
    else retried.add(id);
  }
  if (refused.length === 0 && retried.size === 0) return { kind: 'ok' };
  const rest = narrowQueueRequest(req, retried);
  const error = new Error(`${retried.size} of ${req.entries.length} messages failed (${retriedWhy || 'not confirmed'})`);
  if (refused.length === 0) return { kind: 'partial', delivered, rest, error };
  const reason = new Error(`${refused.length} of ${req.entries.length} messages refused by the queue (${refusedWhy})`);
  return { kind: 'partial', delivered, rest, error, refused: { events: refused, reason } };
}
