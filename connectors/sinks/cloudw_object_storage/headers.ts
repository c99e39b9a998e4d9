/** The object headers every write carries, from the options (as Vector sets them), fixed at build time. */
import type { ObjectCannedACL, ServerSideEncryption, StorageClass } from '@aws-sdk/client-s3';
import { compileTemplate } from '../../../lib/template.js';
import type { CloudwObjectStorageConfig } from './config.js';

/** Parameters shared by PutObject and CreateMultipartUpload. */
export interface ObjectHeaders {
  readonly Bucket: string;
  readonly ContentType: string;
  readonly ContentEncoding?: string;
  readonly ACL?: ObjectCannedACL;
  readonly GrantFullControl?: string;
  readonly GrantRead?: string;
  readonly GrantReadACP?: string;
  readonly GrantWriteACP?: string;
  readonly ServerSideEncryption?: ServerSideEncryption;
  readonly SSEKMSKeyId?: string;
  readonly StorageClass: StorageClass;
  readonly Tagging?: string;
}

/** `tags` as the `x-amz-tagging` value: URL query form, keys sorted. */
export function taggingOf(tags: Readonly<Record<string, string>> | undefined): string | undefined {
  if (!tags) return undefined;
  const keys = Object.keys(tags).sort();
  if (keys.length === 0) return undefined;
  return keys.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(tags[k]!)}`).join('&');
}

/**
 * The headers of every object. `Content-Encoding` is `content_encoding`, else the compressor's;
 * `x-amz-acl` only when `acl` is set (the service then applies `private`, the spec's default).
 */
export function objectHeaders(config: CloudwObjectStorageConfig, compressionEncoding: string | undefined): ObjectHeaders {
  const h: { -readonly [K in keyof ObjectHeaders]: ObjectHeaders[K] } = { Bucket: config.bucket, ContentType: config.content_type, StorageClass: config.storage_class as StorageClass };
  const encoding = config.content_encoding ?? compressionEncoding;
  if (encoding) h.ContentEncoding = encoding;
  if (config.acl) h.ACL = config.acl as ObjectCannedACL;
  if (config.grant_full_control !== undefined) h.GrantFullControl = config.grant_full_control;
  if (config.grant_read !== undefined) h.GrantRead = config.grant_read;
  if (config.grant_read_acp !== undefined) h.GrantReadACP = config.grant_read_acp;
  if (config.grant_write_acp !== undefined) h.GrantWriteACP = config.grant_write_acp;
  if (config.server_side_encryption) h.ServerSideEncryption = config.server_side_encryption as ServerSideEncryption;
  if (config.ssekms_key_id !== undefined) {
    const kms = compileTemplate(config.ssekms_key_id);
    // a templated key id is per object (request.ts); a fixed one is the same for all
    if (!kms.isDynamic) h.SSEKMSKeyId = kms.text;
  }
  const tagging = taggingOf(config.tags);
  if (tagging) h.Tagging = tagging;
  return h;
}
