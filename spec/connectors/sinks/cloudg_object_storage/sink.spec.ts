import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Subject, VirtualAction, VirtualTimeScheduler, from, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudgObjectStorageConfig } from '../../../../connectors/sinks/cloudg_object_storage/config.js';
import { buildCloudgObjectStorageSink, cloudgObjectStorageHealthcheck } from '../../../../connectors/sinks/cloudg_object_storage/sink.js';
import { type Delivery, type EventBatch, logEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type GcsPeer, type StoredObject, startGcs } from '../../../peers/gcs.js';
import { type GoogleTokenPeer, generateServiceAccount, startGoogleTokenPeer } from '../../../peers/google-token.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-gcs-sink-'));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/;
const count = (ds: readonly Delivery[], s: Delivery['status']) => ds.filter((d) => d.status === s).reduce((n, d) => n + d.events.length, 0);
/** 2024-03-05T10:00:00Z and the next day. */
const DAY1 = Timestamp.fromDate(new Date(Date.UTC(2024, 2, 5, 10)));
const DAY2 = Timestamp.fromDate(new Date(Date.UTC(2024, 2, 6, 10)));

describe('connectors/sinks/cloudg_object_storage: objects over the XML API (strict peer, loopback token endpoint)', function () {
  this.timeout(30_000);
  let tokens: GoogleTokenPeer;
  let gcs: GcsPeer;
  let keyFile: string;
  before(async () => {
    tokens = await startGoogleTokenPeer();
    const account = generateServiceAccount();
    tokens.trust(account);
    keyFile = account.writeKeyFile(tmp, tokens.tokenUri);
    gcs = await startGcs(tokens);
  });
  after(async () => {
    await gcs.close();
    await tokens.close();
  });
  beforeEach(() => {
    gcs.objects.clear();
    gcs.http.requests.length = 0;
    gcs.http.fault = undefined;
    gcs.forbidden.clear();
  });

  const config = (extra: Record<string, unknown> = {}) => {
    const c = v.parse(CloudgObjectStorageConfig, { type: 'cloudg_object_storage', inputs: ['in'], bucket: 'weir-bucket', endpoint: gcs.url, credentials_path: keyFile, ...extra });
    c.request = { ...c.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 10 };
    return c;
  };
  const run = async (c: CloudgObjectStorageConfig, batches: EventBatch[], env: NodeJS.ProcessEnv = {}) =>
    lastValueFrom(from(batches).pipe(buildCloudgObjectStorageSink(c, testSinkContext('cloudg_object_storage'), env), toArray()));
  const stored = (): StoredObject[] => [...gcs.objects.values()];
  const puts = () => gcs.http.requests.filter((r) => r.method === 'PUT' || r.method === 'POST');

  it('defaults: ndjson, no compression; name date=<event day>/<epoch seconds>-<uuid>.log; storage class header, no ACL header', async () => {
    const t0 = Math.floor(Date.now() / 1000);
    const ds = await run(config(), [[logEvent({ message: 'a', timestamp: DAY1 }), logEvent({ message: 'b', timestamp: DAY1 })]]);
    const t1 = Math.ceil(Date.now() / 1000);
    expect(count(ds, 'delivered')).to.equal(2);
    const [o] = stored();
    const m = new RegExp(`^date=2024-03-05/(\\d+)-(${UUID.source})\\.log$`).exec(o!.name);
    expect(m, o!.name).to.not.equal(null);
    expect(Number(m![1])).to.be.within(t0, t1);
    expect(o!.body.toString()).to.equal('{"message":"a","timestamp":"2024-03-05T10:00:00Z"}\n{"message":"b","timestamp":"2024-03-05T10:00:00Z"}');
    expect(o).to.include({ contentType: 'application/x-ndjson', contentEncoding: undefined, storageClass: 'STANDARD', acl: undefined, via: 'put' });
    const req = puts()[0]!;
    expect(req.headers['x-goog-storage-class']).to.equal('STANDARD');
    expect(req.headers).to.not.have.property('x-goog-acl');
    expect(tokens.check(req.headers.authorization, 'https://www.googleapis.com/auth/devstorage.read_write')).to.equal('ok');
  });

  it('gzip: Content-Encoding gzip, the .log.gz extension, the body gzipped; text codec joins messages', async () => {
    const ds = await run(config({ compression: 'gzip', encoding: { codec: 'text' } }), [[logEvent({ message: 'one', timestamp: DAY1 }), logEvent({ message: 'two', timestamp: DAY1 })]]);
    expect(count(ds, 'delivered')).to.equal(2);
    const [o] = stored();
    expect(o!.name).to.match(new RegExp(`^date=2024-03-05/\\d+-${UUID.source}\\.log\\.gz$`));
    expect(o).to.include({ contentType: 'text/plain', contentEncoding: 'gzip' });
    expect(gunzipSync(o!.raw).toString()).to.equal('one\ntwo');
  });

  it('Vector-style encoding: json with newline framing is ndjson; json alone a JSON array', async () => {
    await run(config({ key_prefix: 'a/', encoding: { codec: 'json' }, framing: { method: 'newline_delimited' } }), [[logEvent({ message: 'a' }), logEvent({ message: 'b' })]]);
    expect(stored()[0]).to.include({ contentType: 'application/x-ndjson' });
    expect(stored()[0]!.body.toString()).to.equal('{"message":"a"}\n{"message":"b"}');
    gcs.objects.clear();
    await run(config({ key_prefix: 'b/', encoding: { codec: 'json' } }), [[logEvent({ message: 'a' }), logEvent({ message: 'b' })]]);
    expect(stored()[0]).to.include({ contentType: 'application/json' });
    expect(stored()[0]!.body.toString()).to.equal('[{"message":"a"},{"message":"b"}]');
  });

  it('prefixes come from event timestamps and templates; one object per rendered prefix', async () => {
    const evs = [
      logEvent({ message: 'a', app: 'web', timestamp: DAY1 }),
      logEvent({ message: 'b', app: 'db', timestamp: DAY2 }),
      logEvent({ message: 'c', app: 'web', timestamp: DAY1 }),
      logEvent({ message: 'no app', timestamp: DAY1 }),
    ];
    const ctx = testSinkContext('cloudg_object_storage');
    const ds = await lastValueFrom(from([evs]).pipe(buildCloudgObjectStorageSink(config({ key_prefix: 'logs/{{ app }}/%Y/%m/%d/' }), ctx, {}), toArray()));
    expect(count(ds, 'delivered')).to.equal(3);
    expect(count(ds, 'rejected')).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
    const byPrefix = new Map(stored().map((o) => [o.name.slice(0, o.name.lastIndexOf('/') + 1), o.body.toString().split('\n').map((l) => (JSON.parse(l) as { message: string }).message)]));
    expect(Object.fromEntries(byPrefix)).to.deep.equal({ 'logs/web/2024/03/05/': ['a', 'c'], 'logs/db/2024/03/06/': ['b'] });
  });

  it('filename_time_format, filename_append_uuid = false and filename_extension', async () => {
    await run(config({ key_prefix: 'x/', filename_time_format: 'at-%Y', filename_append_uuid: false, filename_extension: 'ndjson' }), [[logEvent({ message: 'a' })]]);
    expect(stored()[0]!.name).to.equal(`x/at-${new Date().getUTCFullYear()}.ndjson`);
  });

  it('timezone renders the prefix in that zone; request.headers go on every request', async () => {
    const late = Timestamp.fromDate(new Date(Date.UTC(2024, 2, 5, 20)));
    await run(config({ timezone: 'Asia/Tokyo', request: { headers: { 'x-team': 'obs' } } }), [[logEvent({ message: 'a', timestamp: late })]]);
    expect(stored()[0]!.name).to.match(/^date=2024-03-06\//);
    expect(puts()[0]!.headers['x-team']).to.equal('obs');
  });

  it('a batch waits for batch.timeout_secs (default 300 s) before it is written', async () => {
    const clock = new VirtualTimeScheduler(VirtualAction, 299_999);
    const input = new Subject<EventBatch>();
    const done = lastValueFrom(input.pipe(buildCloudgObjectStorageSink(config(), testSinkContext('cloudg_object_storage', { scheduler: clock }), {}), toArray()));
    input.next([logEvent({ message: 'a' })]);
    clock.flush();
    // nothing ran before 299.999 s; the batch's flush is the one action left, at 300 s
    expect(clock.actions.map((a) => a.delay)).to.deep.equal([300_000]);
    expect(puts()).to.have.length(0);
    clock.maxFrames = 300_000;
    clock.flush();
    input.complete();
    const ds = await done;
    expect(count(ds, 'delivered')).to.equal(1);
    expect(puts()).to.have.length(1);
  });

  it('healthcheck.enabled = false makes no request', async () => {
    await cloudgObjectStorageHealthcheck(config({ bucket: 'no-bucket', healthcheck: { enabled: false } }), { globals: testSinkContext('x').globals }, {});
    expect(gcs.http.requests).to.have.length(0);
  });

  it('acl, storage_class and metadata become x-goog-acl, x-goog-storage-class and x-goog-meta-* headers', async () => {
    await run(config({ acl: 'project-private', storage_class: 'COLDLINE', metadata: { team: 'obs', 'X-Goog-Meta-Env': 'prod' } }), [[logEvent({ message: 'a' })]]);
    const [o] = stored();
    expect(o).to.include({ acl: 'project-private', storageClass: 'COLDLINE' });
    expect(o!.metadata).to.deep.equal({ team: 'obs', env: 'prod' });
    gcs.objects.clear();
    await run(config({ metadata: 'team:obs, owner:ops' }), [[logEvent({ message: 'a' })]]);
    expect(stored()[0]!.metadata).to.deep.equal({ team: 'obs', owner: 'ops' });
  });

  it('5xx and 429 are retried with the same name and body; 403 is rejected', async () => {
    gcs.http.failNext(503);
    gcs.http.failNext(429);
    gcs.http.failNext(500);
    const ds = await run(config(), [[logEvent({ message: 'a' })]]);
    expect(count(ds, 'delivered')).to.equal(1);
    const ps = puts();
    expect(ps).to.have.length(4);
    expect(new Set(ps.map((p) => p.path)).size).to.equal(1);
    expect(new Set(ps.map((p) => p.raw.toString())).size).to.equal(1);
    gcs.http.requests.length = 0;
    gcs.forbidden.add('weir-bucket');
    const denied = await run(config(), [[logEvent({ message: 'a' })]]);
    expect(count(denied, 'rejected')).to.equal(1);
    expect(puts()).to.have.length(1);
  });

  it('an expired token is refused (401) and refreshed; api_key travels as the key parameter', async () => {
    let first = true;
    gcs.http.fault = (req) => {
      if (first && req.method === 'PUT') {
        first = false;
        tokens.expire(req.headers.authorization!.slice(7));
      }
      return undefined;
    };
    expect(count(await run(config(), [[logEvent({ message: 'a' })]]), 'delivered')).to.equal(1);
    const [a, b] = puts();
    expect(a!.headers.authorization).to.not.equal(b!.headers.authorization);
    gcs.http.fault = undefined;
    gcs.http.requests.length = 0;
    gcs.apiKey = 'AIza-storage';
    expect(count(await run(config({ credentials_path: undefined, api_key: 'AIza-storage' }), [[logEvent({ message: 'a' })]]), 'delivered')).to.equal(1);
    expect(puts()[0]!.query.get('key')).to.equal('AIza-storage');
    expect(puts()[0]!.headers.authorization).to.equal(undefined);
  });

  it('bodies from resumable_threshold_bytes on go up as a resumable upload in 256 KiB multiples', async () => {
    const big = Array.from({ length: 700 }, (_, i) => logEvent({ message: `${i}:${'x'.repeat(1000)}` }));
    const ds = await run(config({ resumable_threshold_bytes: 300_000, resumable_chunk_bytes: 262_144, key_prefix: 'big/' }), [big]);
    expect(count(ds, 'delivered')).to.equal(700);
    const [o] = stored();
    expect(o!.via).to.equal('resumable');
    expect(o!.body.toString().split('\n').map((l) => (JSON.parse(l) as { message: string }).message.split(':')[0])).to.deep.equal(big.map((_, i) => String(i)));
    const steps = puts().map((r) => `${r.method} ${r.headers['content-range'] ?? r.headers['x-goog-resumable']}`);
    expect(steps[0]).to.equal('POST start');
    expect(steps.slice(1, 3)).to.deep.equal(['PUT bytes 0-262143/*', 'PUT bytes 262144-524287/*']);
    expect(steps[3]).to.match(/^PUT bytes 524288-\d+\/\d+$/);
    expect(o!.metadata).to.deep.equal({});
  });

  it('health check: HEAD of the bucket; 404 "bucket not found", 403 "forbidden"', async () => {
    const globals = testSinkContext('x').globals;
    await cloudgObjectStorageHealthcheck(config(), { globals }, {});
    expect(gcs.http.requests.at(-1)).to.include({ method: 'HEAD', path: '/weir-bucket/' });
    const missing = await cloudgObjectStorageHealthcheck(config({ bucket: 'no-bucket' }), { globals }, {}).then(() => undefined, (e: Error) => e);
    expect(missing?.message).to.match(/^bucket not found: HEAD /);
    gcs.forbidden.add('weir-bucket');
    const forbidden = await cloudgObjectStorageHealthcheck(config(), { globals }, {}).then(() => undefined, (e: Error) => e);
    expect(forbidden?.message).to.match(/^forbidden: HEAD /);
  });
});
