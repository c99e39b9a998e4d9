/** The S3 client of the sink, on the shared cloudw client config (SDK retries off, keep-alive agents, credential chain). */
import type { S3Client } from '@aws-sdk/client-s3';
import type { ComponentContext } from '../../../lib/component.js';
import { cloudwClientConfig } from '../../shared/cloudw/client.js';
import type { CloudwCredentialProvider } from '../../shared/cloudw/credentials.js';
import type { CloudwObjectStorageConfig } from './config.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const s3 = lazyModule<typeof import('@aws-sdk/client-s3')>('@aws-sdk/client-s3');

type Env = Readonly<Record<string, string | undefined>>;

/**
 * An S3 client for the sink's options, and its credential provider (the health check resolves it
 * first). Checksums only where the service requires them: every write carries `Content-MD5`
 * (as Vector sends) and the body is a buffer, so the SDK's default CRC32 would only add a
 * second pass over it.
 */
export function createObjectStorageClient(
  config: CloudwObjectStorageConfig,
  ctx: Pick<ComponentContext, 'globals'>,
  env: Env = process.env,
): { client: S3Client; credentials: CloudwCredentialProvider } {
  const base = cloudwClientConfig(config, ctx, env);
  const client = new (s3().S3Client)({ ...base, forcePathStyle: config.force_path_style, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  return { client, credentials: base.credentials };
}
