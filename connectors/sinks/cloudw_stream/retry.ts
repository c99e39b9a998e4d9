/**
 * The answer to PutRecords: HTTP 200 even when records failed, with one result per record in
 * request order (the Kinesis PutRecords API reference). Failed records with a transient code
 * (throttling, internal failure) are the only ones sent again; records refused for good end rejected.
 */
import type { PutRecordsCommandOutput } from '@aws-sdk/client-kinesis';
import type { Event } from '../../../lib/event.js';
import { THROTTLING_CODES } from '../../shared/cloudw/retry.js';
import type { Verdict } from '../../shared/request-sink.js';
import { type StreamRequest, subRequest } from './request.js';

/** Record error codes worth another attempt; others (key-management refusals) are final. */
const isTransientRecordCode = (code: string): boolean => THROTTLING_CODES.has(code) || code === 'InternalFailure' || code === 'KMSThrottlingException';

/** Some records of a call failed for now and go out again; `code` is the first record's error code. */
export class RecordsFailedError extends Error {
  override readonly name = 'RecordsFailedError';
  constructor(
    readonly code: string,
    readonly failed: number,
    readonly total: number,
  ) {
    super(`${failed} of ${total} records failed (${code})`);
  }
}

/** Some records of a call were refused for good; `code` is the first record's error code. */
export class RecordsRefusedError extends Error {
  override readonly name = 'RecordsRefusedError';
  constructor(
    readonly code: string,
    readonly refused: number,
    readonly total: number,
  ) {
    super(`${refused} of ${total} records refused by the stream (${code})`);
  }
}

/** Classifies a PutRecords answer for the skeleton; pure, what it learns is in the verdict. */
export function classifyPutRecords(res: Pick<PutRecordsCommandOutput, 'FailedRecordCount' | 'Records'>, req: StreamRequest): Verdict<StreamRequest> {
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
  // a count the results do not bear out: every record was stored
  if (again.length === 0 && refused.length === 0) return { kind: 'ok' };
  const rest = subRequest(req, again);
  const reason = refused.length === 0 ? undefined : new RecordsRefusedError(refusedCode, refused.length, results.length);
  if (reason === undefined) return { kind: 'partial', delivered, rest, error: new RecordsFailedError(againCode, again.length, results.length) };
  // with nothing to send again the request ends here, and its error is never raised
  const error = again.length === 0 ? reason : new RecordsFailedError(againCode, again.length, results.length);
  return { kind: 'partial', delivered, rest, error, refused: { events: refused, reason } };
}
