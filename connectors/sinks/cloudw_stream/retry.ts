/**
 * The answer to PutRecords (the Kinesis PutRecords API reference): HTTP 200 even when records failed, with one
 * result per record in request order. Failed records with a transient code (throttling, internal
 * failure) are the only ones sent again; records refused for good end rejected.
 */
import type { PutRecordsCommandOutput } from '@aws-sdk/client-kinesis';
import type { Event } from '../../../lib/event.js';
import { THROTTLING_CODES } from '../../shared/cloudw/retry.js';
import type { Verdict } from '../../shared/request-sink.js';
import { type StreamRequest, subRequest } from './request.js';

/** Record error codes worth another attempt; others (key-management refusals) are final. */
const isTransientRecordCode = (code: string): boolean => THROTTLING_CODES.has(code) || code === 'InternalFailure' || code === 'KMSThrottlingException';

/** What the sink learns from one answer besides the verdict. */
export interface RecordOutcome {
  /** Records refused for good: their events and the first error code. */
  refused(events: readonly Event[], code: string): void;
  /** Records that failed for now and go out again. */
  retrying(code: string, failed: number, total: number): void;
}

/** Classifies a PutRecords answer for the skeleton. */
export function classifyPutRecords(res: Pick<PutRecordsCommandOutput, 'FailedRecordCount' | 'Records'>, req: StreamRequest, outcome: RecordOutcome): Verdict<StreamRequest> {
  if (!res.FailedRecordCount) return { kind: 'ok' };
  const results = res.Records ?? [];
  if (results.length !== req.records.length) {
    return { kind: 'retry', error: new Error(`PutRecords answered ${results.length} results for ${req.records.length} records`) };
  }
  const delivered: Event[] = [];
  const again: number[] = [];
  const refused: Event[] = [];
  let againCode = '';
  let refusedCode = '';
  for (let i = 0; i < results.length; i++) {
    const code = results[i]!.ErrorCode;
    if (code === undefined || code === '') delivered.push(req.events[i]!);
    else if (isTransientRecordCode(code)) {
      again.push(i);
      againCode ||= code;
    } else {
      refused.push(req.events[i]!);
      refusedCode ||= code;
    }
  }
  if (refused.length > 0) outcome.refused(refused, refusedCode);
  if (again.length > 0) outcome.retrying(againCode, again.length, results.length);
  const message = `${again.length + refused.length} of ${results.length} records failed (${againCode || refusedCode})`;
  return { kind: 'partial', delivered, rest: subRequest(req, again), error: new Error(message) };
}
