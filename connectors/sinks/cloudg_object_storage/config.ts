/** Options of the `cloudg_object_storage` sink (Vector's `gcp_cloud_storage`). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { framingSchema } from '../../../lib/codecs/framing.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { cloudgAuthOptions } from '../../shared/cloudg/options.js';
import { objectNamingEntries } from '../../shared/object-storage/options.js';

/** The public XML API (Vector's default; the spec names no endpoint). */
export const DEFAULT_ENDPOINT = 'https://storage.googleapis.com';
/** Cloud Storage predefined ACLs, the `acl` values. */
export const ACLS = ['authenticated-read', 'bucket-owner-full-control', 'bucket-owner-read', 'private', 'project-private', 'public-read'] as const;
/** Cloud Storage classes, the `storage_class` values. */
export const STORAGE_CLASSES = ['STANDARD', 'NEARLINE', 'COLDLINE', 'ARCHIVE'] as const;
/** The service takes resumable uploads in chunks of whole multiples of 256 KiB. */
export const RESUMABLE_CHUNK_QUANTUM = 256 * 1024;

/** `cloudg_object_storage` is limited by default to 1000 requests per second. */
const GCS_REQUEST_DEFAULTS = { ...REQUEST_DEFAULTS, rate_limit_num: 1000 };

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `metadata`: a map, or the spec's string of `key:value` pairs separated by commas. */
const metadataSchema = v.pipe(
  v.union([v.record(v.string(), v.string()), v.string()], 'must be a table of names and values, or a string of "key:value" pairs'),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const value = dataset.value;
    if (typeof value !== 'string') return value;
    const out: Record<string, string> = {};
    for (const pair of value.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
      const at = pair.indexOf(':');
      if (at <= 0) {
        addIssue({ message: `"${pair}" is not a key:value pair` });
        return NEVER;
      }
      out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
    }
    return out;
  }),
  v.check((m) => Object.keys(m).every((k) => HEADER_NAME.test(k)), 'metadata names must be valid header names (letters, digits, "-")'),
  v.check((m) => Object.values(m).every((val) => !/[\r\n]/.test(val)), 'metadata values must not contain line breaks'),
  v.description('Custom object metadata, sent as `x-goog-meta-<name>` headers.'),
);

/** Valibot schema of the `cloudg_object_storage` sink. */
export const CloudgObjectStorageConfig = sinkObject(
  'cloudg_object_storage',
  {
    bucket: v.pipe(
      v.string(),
      v.regex(/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/, 'must be a bucket name: 3 to 222 lowercase letters, digits, "-", "_" and ".", starting and ending with a letter or digit'),
      v.description('Bucket to write objects to.'),
    ),
    acl: v.optional(v.pipe(v.picklist(ACLS), v.description('Predefined ACL of new objects (`x-goog-acl`); unset: the bucket default applies (project-private unless changed).'))),
    ...cloudgAuthOptions,
    endpoint: v.optional(httpUrlSchema('Base URL of the XML API.'), DEFAULT_ENDPOINT),
      /** `ndjson` or `text`; the other text codecs as Vector's `gcp_cloud_storage` takes them. */
    encoding: v.optional(encodingSchema(['ndjson', 'text', 'json', 'logfmt', 'raw_message', 'gelf', 'native_json'] as const), { codec: 'ndjson' }),
    /** How events are joined in an object (Vector's option); unset: per codec (json: an array, gelf: NUL, the rest: newlines). */
    framing: v.optional(framingSchema(['bytes', 'character_delimited', 'length_delimited', 'newline_delimited'] as const, undefined, 'encode'), {}),
    ...objectNamingEntries,
    metadata: v.optional(metadataSchema, {}),
    storage_class: v.optional(v.pipe(v.picklist(STORAGE_CLASSES), v.description('Storage class of new objects (`x-goog-storage-class`).')), 'STANDARD'),
    compression: compressionSchema(['none', 'gzip'] as const, 'none'),
    /** Beyond the spec: bodies from this size on go up as a resumable upload, in chunks. */
    resumable_threshold_bytes: v.optional(v.pipe(posint(), v.description('Bodies of at least this many bytes (after compression) are sent as a resumable upload.')), 8 * 1024 * 1024),
    resumable_chunk_bytes: v.optional(
      v.pipe(posint(), v.check((n) => n % RESUMABLE_CHUNK_QUANTUM === 0, `must be a multiple of ${RESUMABLE_CHUNK_QUANTUM} (256 KiB)`), v.description('Chunk size of resumable uploads.')),
      8 * 1024 * 1024,
    ),
    batch: batchSchema({ max_bytes: 10_000_000, timeout_secs: 300 }),
    request: requestSchema(GCS_REQUEST_DEFAULTS),
    tls: urlTlsSchema('endpoint'),
  },
  { proxy: true },
);
/** Validated `cloudg_object_storage` options. */
export type CloudgObjectStorageConfig = v.InferOutput<typeof CloudgObjectStorageConfig>;
