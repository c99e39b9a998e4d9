/** Options of the `cloudw_object_storage` sink (Vector's `aws_s3`). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { framingSchema } from '../../../lib/codecs/framing.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { cloudwConnectionEntries } from '../../shared/cloudw/options.js';
import { objectNamingEntries } from '../../shared/object-storage/options.js';

/** S3 canned ACLs. */
export const CANNED_ACLS = ['authenticated-read', 'aws-exec-read', 'bucket-owner-full-control', 'bucket-owner-read', 'log-delivery-write', 'private', 'public-read', 'public-read-write'] as const;
/** S3 storage classes. */
export const STORAGE_CLASSES = ['DEEP_ARCHIVE', 'GLACIER', 'INTELLIGENT_TIERING', 'ONEZONE_IA', 'REDUCED_REDUNDANCY', 'STANDARD', 'STANDARD_IA'] as const;
/** Codecs `json` and `text`; the other text codecs weir has are accepted as Vector accepts them. */
export const OBJECT_CODECS = ['json', 'text', 'ndjson', 'logfmt', 'raw_message', 'gelf', 'native_json'] as const;

/** The service's smallest part (all but the last) of a multipart upload: 5 MiB. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** The service's largest single PutObject and largest part: 5 GiB. */
export const MAX_PUT_BYTES = 5 * 1024 * 1024 * 1024;

/** `bucket`: a name only: no `s3://`-style scheme, no trailing `/`. */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const bucketSchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.check((b) => !SCHEME.test(b), 'must be the bucket name only, without a scheme such as "s3://"'),
  v.check((b) => SCHEME.test(b) || !b.endsWith('/'), 'must be the bucket name only, without a trailing "/" (put folders in key_prefix)'),
  // one issue per mistake: a scheme or a trailing slash is reported above
  v.check((b) => SCHEME.test(b) || b.endsWith('/') || !b.includes('/'), 'must be the bucket name only; put folders in key_prefix'),
  v.description('Bucket name.'),
);

/**
 * `multipart`: bodies (after compression) of `threshold_bytes` or more go up in parts of
 * `part_size_bytes` (CreateMultipartUpload, UploadPart, CompleteMultipartUpload; aborted on failure).
 */
const multipartSchema = v.optional(
  v.pipe(
    v.strictObject({
      threshold_bytes: v.optional(
        v.pipe(posint(), v.maxValue(MAX_PUT_BYTES, 'must be at most 5 GiB, the largest single upload'), v.description('Bodies of at least this many bytes are uploaded in parts.')),
        16 * 1024 * 1024,
      ),
      part_size_bytes: v.optional(
        v.pipe(posint(), v.minValue(MIN_PART_BYTES, 'must be at least 5 MiB (5242880), the smallest part the service takes'), v.maxValue(MAX_PUT_BYTES, 'must be at most 5 GiB')),
        8 * 1024 * 1024,
      ),
    }),
  ),
  {},
);

/** Valibot schema of the `cloudw_object_storage` sink. */
export const CloudwObjectStorageConfig = v.pipe(
  sinkObject(
    'cloudw_object_storage',
    {
      bucket: bucketSchema,
      ...objectNamingEntries,
      content_type: v.optional(v.pipe(v.string(), v.description('Content-Type of the objects.')), 'text/x-log'),
      content_encoding: v.optional(v.pipe(v.string(), v.description('Content-Encoding of the objects; overrides the value derived from compression.'))),
      compression: compressionSchema(['gzip', 'none'] as const, 'gzip'),
      encoding: encodingSchema(OBJECT_CODECS),
      framing: v.optional(framingSchema(['bytes', 'character_delimited', 'length_delimited', 'newline_delimited'] as const, undefined, 'encode'), {}),
      acl: v.optional(v.picklist(CANNED_ACLS)),
      grant_full_control: v.optional(v.string()),
      grant_read: v.optional(v.string()),
      grant_read_acp: v.optional(v.string()),
      grant_write_acp: v.optional(v.string()),
      server_side_encryption: v.optional(v.picklist(['AES256', 'aws:kms'])),
      ssekms_key_id: v.optional(templateSchema('KMS key of aws:kms encryption; a template (rendered per event, one object per key), as Vector renders it.')),
      storage_class: v.optional(v.picklist(STORAGE_CLASSES), 'STANDARD'),
      tags: v.optional(v.record(v.pipe(v.string(), v.minLength(1, 'a tag key must not be empty')), v.string())),
      force_path_style: v.optional(v.pipe(v.boolean(), v.description('Address the bucket in the path (`<endpoint>/<bucket>/<key>`) rather than the host name.')), true),
      multipart: multipartSchema,
      ...cloudwConnectionEntries(),
      // Vector's defaults: 10,000,000 bytes, timeout 300 s
      batch: batchSchema({ max_bytes: 10_000_000, timeout_secs: 300 }),
      request: requestSchema(REQUEST_DEFAULTS),
    },
    { proxy: true, allowDiskV1: true },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    if (c.ssekms_key_id !== undefined && c.server_side_encryption !== 'aws:kms')
      addIssue({ message: 'applies only when server_side_encryption is "aws:kms"', path: [pathItem(c, 'ssekms_key_id')] });
    // the service refuses a canned ACL together with grant headers
    const grants = (['grant_full_control', 'grant_read', 'grant_read_acp', 'grant_write_acp'] as const).filter((g) => c[g] !== undefined);
    if (c.acl !== undefined && grants.length > 0) addIssue({ message: `a canned acl and ${grants.join(', ')} must not both be set`, path: [pathItem(c, 'acl')] });
    if (c.multipart.threshold_bytes < c.multipart.part_size_bytes)
      addIssue({ message: 'must be at least multipart.part_size_bytes', path: [pathItem(c, 'multipart'), pathItem(c.multipart, 'threshold_bytes')] });
    // the SDK builds the request; no extra headers are sent, so accepting them would ignore them
    if (Object.keys(c.request.headers).length > 0)
      addIssue({ message: 'does not apply to this sink: its requests are the service API calls', path: [pathItem(c, 'request'), pathItem(c.request, 'headers')] });
    const f = c.framing;
    if (c.encoding.codec === 'gelf' && f.method !== undefined && f.method !== 'character_delimited')
      addIssue({ message: 'gelf messages are separated by a delimiter (character_delimited, NUL by default)', path: [pathItem(c, 'framing')] });
  }),
);
export type CloudwObjectStorageConfig = v.InferOutput<typeof CloudwObjectStorageConfig>;
