import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloudwObjectStorageHealthcheck } from '../../../../connectors/sinks/cloudw_object_storage/sink.js';
import { defaultGlobals } from '../../../../lib/config/global.js';
import type { HttpPeer } from '../../../peers/http-peer.js';
import { type S3Peer, s3Error, startS3, startS3Proxy } from '../../../peers/s3.js';
import { BUCKET, s3Config } from './harness.js';

const ctx = { globals: defaultGlobals() };
/** An environment with no credentials anywhere: empty files, metadata service off. */
const empty = mkdtempSync(join(tmpdir(), 'weir-s3-hc-'));
const noCredentialsEnv = { HOME: empty, CLOUDW_SHARED_CREDENTIALS_FILE: join(empty, 'credentials'), CLOUDW_CONFIG_FILE: join(empty, 'config'), CLOUDW_EC2_METADATA_DISABLED: 'true' };

describe('connectors/sinks/cloudw_object_storage: health check', () => {
  let s3: S3Peer;
  let proxy: HttpPeer;
  before(async () => {
    s3 = await startS3([BUCKET]);
    proxy = await startS3Proxy(s3.url);
  });
  after(async () => {
    await proxy.close();
    await s3.close();
  });
  beforeEach(() => {
    proxy.requests.length = 0;
    proxy.fault = undefined;
  });

  it('HeadBucket on an existing bucket passes', async () => {
    await cloudwObjectStorageHealthcheck(s3Config(proxy.url), ctx);
    expect(proxy.requests.map((r) => [r.method, r.path])).to.deep.equal([['HEAD', `/${BUCKET}/`]]);
  });

  it('an unknown bucket fails with "unknown bucket"', async () => {
    const err = await cloudwObjectStorageHealthcheck({ ...s3Config(proxy.url), bucket: 'nope' }, ctx).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.equal('HeadBucket nope: unknown bucket (404)');
  });

  it('refused credentials fail with "invalid credentials", once (never retried)', async () => {
    const c = s3Config(proxy.url, { auth: { access_key_id: 'WRONG', secret_access_key: 'x' } });
    const err = await cloudwObjectStorageHealthcheck(c, ctx).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.equal(`HeadBucket ${BUCKET}: invalid credentials (403)`);
    expect(proxy.requests).to.have.length(1);
  });

  it('another status is named; a 503 is not retried', async () => {
    proxy.fault = () => s3Error(503, 'SlowDown', 'slow');
    const err = await cloudwObjectStorageHealthcheck(s3Config(proxy.url), ctx).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.equal(`HeadBucket ${BUCKET}: unknown status 503`);
    expect(proxy.requests).to.have.length(1);
  });

  it('no credentials anywhere: fails before any request and says which sources were tried', async () => {
    const c = s3Config(proxy.url, { auth: {} });
    const err = await cloudwObjectStorageHealthcheck(c, ctx, noCredentialsEnv).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.match(/^no credentials; tried: /);
    expect(err?.message).to.include('instance metadata');
    expect(proxy.requests).to.have.length(0);
  });

  it('credentials from the CLOUDW_* variables reach the peer; healthcheck.enabled = false skips the check', async () => {
    await cloudwObjectStorageHealthcheck(s3Config(proxy.url, { auth: {} }), ctx, { ...noCredentialsEnv, CLOUDW_ACCESS_KEY_ID: 'S3RVER', CLOUDW_SECRET_ACCESS_KEY: 'S3RVER' });
    expect(String(proxy.requests[0]!.headers.authorization)).to.match(/Credential=S3RVER\//);
    await cloudwObjectStorageHealthcheck(s3Config(proxy.url, { healthcheck: { enabled: false }, bucket: 'nope' }), ctx);
    expect(proxy.requests).to.have.length(1);
  });
});
