/** The headers of a new object: type, encoding, ACL, storage class, custom metadata. */
import type { CloudgObjectStorageConfig } from './config.js';

const META = 'x-goog-meta-';

/**
 * `x-goog-acl` only when `acl` is set (as Vector: unset leaves the bucket's default);
 * `x-goog-storage-class` always; each metadata entry as `x-goog-meta-<name>` (a name already so
 * prefixed is kept).
 */
export function objectHeaders(config: Pick<CloudgObjectStorageConfig, 'acl' | 'storage_class' | 'metadata'>, contentType: string, contentEncoding: string | undefined): Record<string, string> {
  const h: Record<string, string> = { 'content-type': contentType };
  if (contentEncoding) h['content-encoding'] = contentEncoding;
  if (config.acl) h['x-goog-acl'] = config.acl;
  h['x-goog-storage-class'] = config.storage_class;
  for (const [k, val] of Object.entries(config.metadata)) h[k.toLowerCase().startsWith(META) ? k.toLowerCase() : `${META}${k.toLowerCase()}`] = val;
  return h;
}

/** `<endpoint>/<bucket>/<key>`, each key segment percent-encoded, `/` kept. */
export function objectUrl(endpoint: string, bucket: string, key: string): string {
  return `${endpoint.replace(/\/+$/, '')}/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}
