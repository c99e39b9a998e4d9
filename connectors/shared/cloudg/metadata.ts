/**
 * The instance service account (last in the credential order): tokens from the instance
 * metadata server through google-auth-library's Compute client. The library takes the server's
 * host from `GCE_METADATA_HOST` only, so the spec's `CLOUDG_METADATA_HOST` is copied there.
 */
import type { Compute } from 'google-auth-library';
import { lazyModule } from '../../../lib/lazy-module.js';

const googleAuth = lazyModule<typeof import('google-auth-library')>('google-auth-library');

/** The metadata server google-auth-library asks when no host is set. */
export const DEFAULT_METADATA_HOST = 'metadata.google.internal';

/** The metadata host in effect: `CLOUDG_METADATA_HOST`, then `GCE_METADATA_HOST`, then the default. */
export function metadataHost(env: NodeJS.ProcessEnv): string {
  return env.CLOUDG_METADATA_HOST || env.GCE_METADATA_HOST || DEFAULT_METADATA_HOST;
}

/** A Compute client asking `host` for tokens of the default service account with `scope`. */
export function metadataClient(host: string, scope: string): Compute {
  if (host !== DEFAULT_METADATA_HOST) process.env.GCE_METADATA_HOST = host;
  return new (googleAuth().Compute)({ scopes: [scope] });
}
