/**
 * Writes one object per attempt: PutObject, or for a body of `multipart.threshold_bytes` or more
 * a multipart upload (CreateMultipartUpload, UploadPart per part, CompleteMultipartUpload) that is
 * aborted when any step fails, so no incomplete upload is left to be billed. Never retries.
 */
import type { CompletedPart, S3Client } from '@aws-sdk/client-s3';
import type { ObjectHeaders } from './headers.js';
import { type ObjectRequest, md5Base64 } from './request.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const s3 = lazyModule<typeof import('@aws-sdk/client-s3')>('@aws-sdk/client-s3');

/** The service's largest part count. */
const MAX_PARTS = 10_000;
/** Parts of one upload sent at once: enough to fill a link, few enough to bound the sockets per upload. */
const PARTS_IN_FLIGHT = 4;

/** How objects are written. */
export interface ObjectWriterOptions {
  readonly thresholdBytes: number;
  readonly partSizeBytes: number;
}

/** What an attempt did: the upload form, for counters and tests. */
export interface ObjectWritten {
  readonly multipart: boolean;
  readonly parts: number;
}

/** The per-object KMS key id of a templated `ssekms_key_id`, else nothing (the fixed one is in the headers). */
const kms = (req: ObjectRequest): { SSEKMSKeyId?: string } => (req.kmsKeyId === undefined ? {} : { SSEKMSKeyId: req.kmsKeyId });

/** Writes objects with `client`; `headers` are the same for every object. */
export function createObjectWriter(client: S3Client, headers: ObjectHeaders, opts: ObjectWriterOptions) {
  const put = async (req: ObjectRequest, signal: AbortSignal): Promise<ObjectWritten> => {
    await client.send(new (s3().PutObjectCommand)({ ...headers, ...kms(req), Key: req.key, Body: req.body, ContentMD5: req.md5, ContentLength: req.body.length }), { abortSignal: signal });
    return { multipart: false, parts: 1 };
  };

  const multipart = async (req: ObjectRequest, signal: AbortSignal): Promise<ObjectWritten> => {
    const body = req.body;
    // a body too large for MAX_PARTS parts of the configured size gets larger parts
    const partSize = Math.max(opts.partSizeBytes, Math.ceil(body.length / MAX_PARTS));
    const created = await client.send(new (s3().CreateMultipartUploadCommand)({ ...headers, ...kms(req), Key: req.key }), { abortSignal: signal });
    const uploadId = created.UploadId;
    if (!uploadId) throw new Error('CreateMultipartUpload answered without an UploadId');
    try {
      const count = Math.ceil(body.length / partSize);
      const parts = new Array<CompletedPart>(count);
      let next = 0;
      let failed: { err: unknown } | undefined;
      // each worker takes the next part; a failure stops new parts, and the upload is aborted only
      // once the parts in flight have settled, so none lands after the abort
      const worker = async (): Promise<void> => {
        while (failed === undefined && next < count) {
          const n = ++next;
          const chunk = body.subarray((n - 1) * partSize, Math.min(n * partSize, body.length));
          try {
            const out = await client.send(
              new (s3().UploadPartCommand)({ Bucket: headers.Bucket, Key: req.key, UploadId: uploadId, PartNumber: n, Body: chunk, ContentMD5: md5Base64(chunk), ContentLength: chunk.length }),
              { abortSignal: signal },
            );
            parts[n - 1] = { PartNumber: n, ETag: out.ETag };
          } catch (err) {
            failed ??= { err };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARTS_IN_FLIGHT, count) }, worker));
      if (failed) throw failed.err;
      await client.send(new (s3().CompleteMultipartUploadCommand)({ Bucket: headers.Bucket, Key: req.key, UploadId: uploadId, MultipartUpload: { Parts: parts } }), { abortSignal: signal });
      return { multipart: true, parts: parts.length };
    } catch (err) {
      // not under `signal`: a timed-out attempt still cleans up its parts
      await client.send(new (s3().AbortMultipartUploadCommand)({ Bucket: headers.Bucket, Key: req.key, UploadId: uploadId })).catch(() => undefined);
      throw err;
    }
  };

  return {
    /** One attempt at writing `req`. */
    write: (req: ObjectRequest, signal: AbortSignal): Promise<ObjectWritten> => (req.body.length >= opts.thresholdBytes ? multipart(req, signal) : put(req, signal)),
  };
}
