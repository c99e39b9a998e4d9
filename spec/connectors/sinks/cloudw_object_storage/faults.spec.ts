import type { S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import type { HttpPeer } from '../../../peers/http-peer.js';
import { INTERNAL_ERROR, SLOW_DOWN, type S3Peer, s3Error, startS3, startS3Proxy } from '../../../peers/s3.js';
import { BUCKET, count, fast, log, readClient, readObjects, runSink, s3Config } from './harness.js';

const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => log(`m${from + i}`, 0, { n: from + i }));

describe('connectors/sinks/cloudw_object_storage: retries and faults', () => {
  let s3: S3Peer;
  let proxy: HttpPeer;
  let reader: S3Client;
  let run = 0;
  before(async () => {
    s3 = await startS3([BUCKET]);
    proxy = await startS3Proxy(s3.url);
    reader = readClient(s3.url);
  });
  after(async () => {
    reader.destroy();
    await proxy.close();
    await s3.close();
  });
  beforeEach(() => {
    proxy.requests.length = 0;
    proxy.fault = undefined;
    run++;
  });
  /** A config writing under a prefix of its own per test. */
  const config = (extra: Record<string, unknown> = {}, request = {}) => fast(s3Config(proxy.url, { key_prefix: `run${run}/`, compression: 'none', encoding: { codec: 'text' }, ...extra }), request);
  const stored = async () => (await readObjects(reader, `run${run}/`)).flatMap((o) => o.body.split('\n'));

  for (const [name, fault] of [
    ['503 SlowDown', SLOW_DOWN],
    ['500 InternalError', INTERNAL_ERROR],
    ['429', s3Error(429, 'TooManyRequests', 'slow down')],
    ['400 RequestTimeout (retriable by its code)', s3Error(400, 'RequestTimeout', 'Your socket connection to the server was not read from or written to within the timeout period.')],
  ] as const) {
    it(`retries ${name} with the same object name and body, then delivers`, async () => {
      let k = 0;
      proxy.fault = () => (k++ < 2 ? fault : undefined);
      const ctx = testSinkContext('cloudw_object_storage');
      const ds = await runSink(config(), of(events(3)), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 3]]);
      expect(proxy.requests).to.have.length(3);
      expect(new Set(proxy.requests.map((r) => r.path)).size).to.equal(1);
      expect(new Set(proxy.requests.map((r) => r.raw.toString('base64'))).size).to.equal(1);
      expect(await stored()).to.deep.equal(['m0', 'm1', 'm2']);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
    });
  }

  it('403 AccessDenied is rejected at once, counted and not retried', async () => {
    proxy.fault = () => s3Error(403, 'AccessDenied', 'Access Denied');
    const ctx = testSinkContext('cloudw_object_storage');
    const ds = await runSink(config(), of(events(2)), ctx);
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['rejected', 2]]);
    expect(proxy.requests).to.have.length(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
  });

  it('a missing bucket (404 NoSuchBucket from s3rver) is rejected, not retried', async () => {
    const c = config();
    c.bucket = 'no-such-bucket';
    const ds = await runSink(c, of(events(1)));
    expect(ds[0]!.status).to.equal('rejected');
    expect(proxy.requests).to.have.length(1);
  });

  it('wrong credentials are refused by the peer and rejected', async () => {
    const c = s3Config(proxy.url, { auth: { access_key_id: 'WRONG', secret_access_key: 'x' } });
    const ds = await runSink(fast(c), of(events(1)));
    expect(ds[0]!.status).to.equal('rejected');
    expect(proxy.requests).to.have.length(1);
  });

  it('a wrong secret key: the signature is refused (403 SignatureDoesNotMatch) and the events rejected', async () => {
    const c = s3Config(proxy.url, { auth: { access_key_id: 'S3RVER', secret_access_key: 'not-the-secret' } });
    const ds = await runSink(fast(c), of(events(1)));
    expect(ds[0]!.status).to.equal('rejected');
    expect(proxy.requests).to.have.length(1);
  });

  it('retry_attempts bounds the retries of a 503; the events end errored', async () => {
    proxy.fault = () => SLOW_DOWN;
    const ds = await runSink(config({}, { retry_attempts: 2 }), of(events(1)));
    expect(ds.map((d) => d.status)).to.deep.equal(['errored']);
    expect(proxy.requests).to.have.length(3);
  });

  it('a connection reset is retried', async () => {
    let k = 0; // the peer counts requests over its whole life; this test counts its own
    proxy.fault = () => (k++ < 2 ? 'reset' : undefined);
    const ds = await runSink(config(), of(events(2)));
    expect(ds[0]!.status).to.equal('delivered');
    expect(proxy.requests).to.have.length(3);
    expect(await stored()).to.deep.equal(['m0', 'm1']);
  });

  it('a stall past request.timeout_secs aborts the attempt and retries it', async () => {
    let k = 0;
    proxy.fault = () => (k++ === 0 ? 'stall' : undefined);
    const ctx = testSinkContext('cloudw_object_storage');
    const ds = await runSink(config({}, { timeout_secs: 0.5 }), of(events(2)), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    // a loaded machine may time out a healthy attempt too: at least the stalled one was retried
    expect(proxy.requests.length).to.be.at.least(2);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(proxy.requests.length - 1);
    expect(await stored()).to.deep.equal(['m0', 'm1']);
  });

  it('SlowDown, 500, resets and stalls in rotation, then recovery: every event stored, none lost, none twice', async () => {
    const faults = [SLOW_DOWN, INTERNAL_ERROR, 'reset', 'stall'] as const;
    let k = 0;
    proxy.fault = () => {
      const n = k++;
      return n < 24 ? faults[n % faults.length]! : undefined;
    };
    const ctx = testSinkContext('cloudw_object_storage');
    const input = of(...Array.from({ length: 20 }, (_, b) => events(10, b * 10)));
    const ds = await runSink(config({ batch: { max_events: 10 } }, { timeout_secs: 0.5 }), input, ctx);
    expect(count(ds, 'delivered')).to.equal(200);
    expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
    const lines = await stored();
    expect(lines).to.have.length(200); // every retry rewrote the same object name: nothing twice
    expect(new Set(lines).size).to.equal(200); // zero lost
    // 24 injected failures; a loaded machine may time out a healthy attempt as well
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.be.at.least(24);
  });
});
