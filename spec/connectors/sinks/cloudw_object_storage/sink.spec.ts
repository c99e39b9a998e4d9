import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { of } from 'rxjs';
import type { HttpPeer } from '../../../peers/http-peer.js';
import { type S3Peer, startS3, startS3Proxy } from '../../../peers/s3.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { startTinyproxy } from '../../../helpers/tinyproxy.js';
import { EventMetadata, MetricEvent } from '../../../../lib/event.js';
import { BUCKET, at, count, fast, log, readClient, readObjects, runSink, s3Config } from './harness.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const DAY = 86_400_000;

describe('connectors/sinks/cloudw_object_storage: objects in s3rver', () => {
  let s3: S3Peer;
  let proxy: HttpPeer;
  let reader: S3Client;
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
  beforeEach(async () => {
    proxy.requests.length = 0;
    proxy.fault = undefined;
    const list = await reader.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const keys = (list.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length > 0) await reader.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys } }));
  });
  /** Requests that wrote objects (PUT without a multipart query), as the proxy saw them. */
  const puts = () => proxy.requests.filter((r) => r.method === 'PUT' && !r.query.has('uploadId'));

  it('defaults: one gzipped JSON-array object per batch named date=<event day>/<epoch s>-<uuid>.log.gz, text/x-log, STANDARD', async () => {
    const ctx = testSinkContext('cloudw_object_storage');
    const before = Math.floor(Date.now() / 1000);
    const ds = await runSink(fast(s3Config(proxy.url)), of([log('a'), log('b', 1)]), ctx);
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 2]]);
    const [o, ...rest] = await readObjects(reader);
    expect(rest).to.deep.equal([]);
    const m = new RegExp(`^date=2023-11-14/(\\d+)-${UUID}\\.log\\.gz$`).exec(o!.key);
    expect(m, o!.key).to.not.equal(null);
    expect(Number(m![1])).to.be.within(before, Math.ceil(Date.now() / 1000));
    expect(JSON.parse(o!.body)).to.deep.equal([
      { message: 'a', timestamp: '2023-11-14T22:13:20Z' },
      { message: 'b', timestamp: '2023-11-14T22:13:20.001Z' },
    ]);
    expect(o!.raw.subarray(0, 2)).to.deep.equal(Buffer.from([0x1f, 0x8b]));
    expect([o!.contentType, o!.contentEncoding, o!.storageClass]).to.deep.equal(['text/x-log', 'gzip', 'STANDARD']);
    // bytes on the wire: the gzipped body
    expect(ds[0]!.bytes).to.equal(o!.raw.length);
    const put = puts()[0]!;
    expect(decodeURIComponent(put.path)).to.equal(`/${BUCKET}/${o!.key}`); // path-style (force_path_style default)
    expect(put.headers['content-md5']).to.be.a('string');
    expect(put.headers['x-amz-acl']).to.equal(undefined);
    expect(put.headers['x-amz-tagging']).to.equal(undefined);
  });

  it('key_prefix renders fields and each event timestamp: one object per rendered prefix', async () => {
    const config = fast(s3Config(proxy.url, { key_prefix: '{{ app }}/%Y/%m/%d/', compression: 'none', encoding: { codec: 'text' } }));
    const batch = [log('w1', 0, { app: 'web' }), log('d1', 0, { app: 'db' }), log('w2', DAY, { app: 'web' }), log('w3', 1, { app: 'web' })];
    const ds = await runSink(config, of(batch));
    expect(count(ds, 'delivered')).to.equal(4);
    const objects = await readObjects(reader);
    expect(objects.map((o) => [o.key.replace(/[^/]+$/, ''), o.body])).to.deep.equal([
      ['db/2023/11/14/', 'd1'],
      ['web/2023/11/14/', 'w1\nw3'],
      ['web/2023/11/15/', 'w2'],
    ]);
    expect(objects.every((o) => o.key.endsWith('.log'))).to.equal(true);
  });

  it('an event whose key_prefix field is missing is rejected and counted; the rest are written', async () => {
    const ctx = testSinkContext('cloudw_object_storage');
    const ds = await runSink(fast(s3Config(proxy.url, { key_prefix: '{{ app }}/' })), of([log('ok', 0, { app: 'x' }), log('no app')]), ctx);
    expect(count(ds, 'delivered')).to.equal(1);
    expect(count(ds, 'rejected')).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
    expect((await readObjects(reader)).map((o) => o.key.split('/')[0])).to.deep.equal(['x']);
  });

  it('filename_time_format, filename_append_uuid = false and filename_extension', async () => {
    const config = fast(s3Config(proxy.url, { key_prefix: 'p/', filename_time_format: 'at-%Y', filename_append_uuid: false, filename_extension: 'json' }));
    await runSink(config, of([log('a')]));
    expect((await readObjects(reader)).map((o) => o.key)).to.deep.equal([`p/at-${new Date().getUTCFullYear()}.json`]);
  });

  it('content_type, content_encoding (overriding gzip), compression none, storage_class', async () => {
    await runSink(fast(s3Config(proxy.url, { content_type: 'application/x-ndjson', content_encoding: 'identity', storage_class: 'STANDARD_IA', compression: 'none', encoding: { codec: 'json' }, framing: { method: 'newline_delimited' } })), of([log('a'), log('b')]));
    const [o] = await readObjects(reader);
    expect([o!.contentType, o!.contentEncoding, o!.storageClass]).to.deep.equal(['application/x-ndjson', 'identity', 'STANDARD_IA']);
    expect(o!.key).to.match(/\.log$/);
    expect(o!.body.split('\n').map((l) => JSON.parse(l).message)).to.deep.equal(['a', 'b']);
    await runSink(fast(s3Config(proxy.url, { key_prefix: 'gz/', content_encoding: 'x-custom' })), of([log('c')]));
    const [g] = await readObjects(reader, 'gz/');
    // the body is still gzipped; only the header says otherwise
    expect(g!.contentEncoding).to.equal('x-custom');
    expect(g!.raw.subarray(0, 2)).to.deep.equal(Buffer.from([0x1f, 0x8b]));
  });

  it('encoding.except_fields, only_fields and timestamp_format shape each event; metric events are written too', async () => {
    await runSink(fast(s3Config(proxy.url, { key_prefix: 'enc/', encoding: { codec: 'json', except_fields: ['secret'], timestamp_format: 'unix' } })), of([log('a', 0, { secret: 's', keep: 1 })]));
    expect(JSON.parse((await readObjects(reader, 'enc/'))[0]!.body)).to.deep.equal([{ message: 'a', timestamp: 1_700_000_000, keep: 1 }]);
    await runSink(fast(s3Config(proxy.url, { key_prefix: 'only/', encoding: { codec: 'json', only_fields: ['keep'] } })), of([log('a', 0, { secret: 's', keep: 1 })]));
    expect(JSON.parse((await readObjects(reader, 'only/'))[0]!.body)).to.deep.equal([{ keep: 1 }]);
    const m = new MetricEvent('requests', 'incremental', { type: 'counter', value: 3 }, new EventMetadata('', ''), undefined, undefined, at(0));
    const ds = await runSink(fast(s3Config(proxy.url, { key_prefix: 'm/%F/' })), of([m]));
    expect(ds[0]!.status).to.equal('delivered');
    const [o] = await readObjects(reader, 'm/2023-11-14/');
    expect(JSON.parse(o!.body)[0]).to.deep.include({ name: 'requests', kind: 'incremental', counter: { value: 3 } });
  });

  it('an event the codec cannot encode (gelf without host) is rejected and counted; the rest are written', async () => {
    const ctx = testSinkContext('cloudw_object_storage');
    const ds = await runSink(fast(s3Config(proxy.url, { key_prefix: 'gelf/', compression: 'none', encoding: { codec: 'gelf' } })), of([log('a', 0, { host: 'h' }), log('no host'), log('b', 0, { host: 'h' })]), ctx);
    expect([count(ds, 'delivered'), count(ds, 'rejected')]).to.deep.equal([2, 1]);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(1);
    const [o] = await readObjects(reader, 'gelf/');
    expect(o!.body.split('\0').map((g) => JSON.parse(g).short_message)).to.deep.equal(['a', 'b']);
  });

  it('framing: character_delimited and length_delimited bodies', async () => {
    await runSink(fast(s3Config(proxy.url, { key_prefix: 'c/', compression: 'none', encoding: { codec: 'text' }, framing: { method: 'character_delimited', character_delimited: { delimiter: '|' } } })), of([log('a'), log('b')]));
    await runSink(fast(s3Config(proxy.url, { key_prefix: 'l/', compression: 'none', encoding: { codec: 'text' }, framing: { method: 'length_delimited' } })), of([log('a'), log('bc')]));
    expect((await readObjects(reader, 'c/'))[0]!.body).to.equal('a|b');
    expect([...(await readObjects(reader, 'l/'))[0]!.raw]).to.deep.equal([0, 0, 0, 1, 97, 0, 0, 0, 2, 98, 99]);
  });

  it('acl, tags, server_side_encryption with ssekms_key_id (headers s3rver does not store: checked at the recording proxy)', async () => {
    const config = fast(
      s3Config(proxy.url, { acl: 'bucket-owner-full-control', tags: { team: 'obs', 'b key': 'x&y=z' }, server_side_encryption: 'aws:kms', ssekms_key_id: 'arn:aws:kms:us-east-1:111122223333:key/k1', storage_class: 'GLACIER' }),
    );
    const ds = await runSink(config, of([log('a')]));
    expect(ds[0]!.status).to.equal('delivered');
    const h = puts()[0]!.headers;
    expect(h['x-amz-acl']).to.equal('bucket-owner-full-control');
    expect(h['x-amz-tagging']).to.equal('b%20key=x%26y%3Dz&team=obs');
    expect(h['x-amz-server-side-encryption']).to.equal('aws:kms');
    expect(h['x-amz-server-side-encryption-aws-kms-key-id']).to.equal('arn:aws:kms:us-east-1:111122223333:key/k1');
    expect(h['x-amz-storage-class']).to.equal('GLACIER');
    expect(h['x-amz-grant-read']).to.equal(undefined);
  });

  it('a templated ssekms_key_id is rendered per event: one object per key, an event without the field rejected', async () => {
    const ctx = testSinkContext('cloudw_object_storage');
    const config = fast(s3Config(proxy.url, { key_prefix: 'kms/', server_side_encryption: 'aws:kms', ssekms_key_id: 'alias/{{ tenant }}' }));
    const ds = await runSink(config, of([log('a', 0, { tenant: 't1' }), log('b', 0, { tenant: 't2' }), log('c', 0, { tenant: 't1' }), log('d')]), ctx);
    expect(count(ds, 'delivered')).to.equal(3);
    expect(count(ds, 'rejected')).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
    const byKey = new Map(puts().map((r) => [String(r.headers['x-amz-server-side-encryption-aws-kms-key-id']), decodeURIComponent(r.path)]));
    expect([...byKey.keys()].sort()).to.deep.equal(['alias/t1', 'alias/t2']);
    const objects = await readObjects(reader, 'kms/');
    const bodyAt = (key: string) => JSON.parse(objects.find((o) => `/${BUCKET}/${o.key}` === byKey.get(key))!.body).map((e: { message: string }) => e.message);
    expect(bodyAt('alias/t1')).to.deep.equal(['a', 'c']);
    expect(bodyAt('alias/t2')).to.deep.equal(['b']);
  });

  it('grant_full_control, grant_read, grant_read_acp, grant_write_acp and AES256 (recording proxy)', async () => {
    const config = fast(
      s3Config(proxy.url, {
        grant_full_control: 'id="owner-id"',
        grant_read: 'uri="http://acs.amazonaws.com/groups/global/AllUsers"',
        grant_read_acp: 'emailAddress="a@example.com"',
        grant_write_acp: 'id="w1", id="w2"',
        server_side_encryption: 'AES256',
      }),
    );
    await runSink(config, of([log('a')]));
    const h = puts()[0]!.headers;
    expect([h['x-amz-grant-full-control'], h['x-amz-grant-read'], h['x-amz-grant-read-acp'], h['x-amz-grant-write-acp']]).to.deep.equal([
      'id="owner-id"',
      'uri="http://acs.amazonaws.com/groups/global/AllUsers"',
      'emailAddress="a@example.com"',
      'id="w1", id="w2"',
    ]);
    expect(h['x-amz-server-side-encryption']).to.equal('AES256');
    expect(h['x-amz-server-side-encryption-aws-kms-key-id']).to.equal(undefined);
    expect(h['x-amz-acl']).to.equal(undefined);
  });

  it('batch.max_events and batch.max_bytes cut objects; batch.timeout_secs defaults to 300', async () => {
    expect(s3Config(proxy.url).batch).to.deep.include({ max_bytes: 10_000_000, timeout_secs: 300 });
    const events = Array.from({ length: 7 }, (_, i) => log(`m${i}`));
    await runSink(fast(s3Config(proxy.url, { key_prefix: 'e/', batch: { max_events: 3 } })), of(events));
    expect((await readObjects(reader, 'e/')).map((o) => JSON.parse(o.body).length).sort()).to.deep.equal([1, 3, 3]);
    // each event encodes to 50 bytes of JSON: 120 bytes hold two
    await runSink(fast(s3Config(proxy.url, { key_prefix: 'b/', batch: { max_bytes: 120 } })), of(events.slice(0, 5)));
    expect((await readObjects(reader, 'b/')).map((o) => JSON.parse(o.body).length).sort()).to.deep.equal([1, 2, 2]);
  });

  it('a large body goes up in parts (CreateMultipartUpload, UploadPart, Complete) and reads back whole', async () => {
    const ctx = testSinkContext('cloudw_object_storage');
    // 11 MiB of text that does not compress: three parts of at least 5 MiB
    const events = Array.from({ length: 11 }, (_, i) => log(randomText(1024 * 1024 - 1, i)));
    const config = fast(s3Config(proxy.url, { key_prefix: 'mp/', compression: 'none', encoding: { codec: 'text' }, multipart: { threshold_bytes: 5 * 1024 * 1024, part_size_bytes: 5 * 1024 * 1024 }, batch: { max_bytes: 20_000_000 } }));
    const ds = await runSink(config, of(events), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    const [o] = await readObjects(reader, 'mp/');
    expect(o!.body).to.equal(events.map((e) => e.fields.message).join('\n'));
    const calls = proxy.requests.map(call);
    expect(calls).to.deep.equal(['POST uploads', 'PUT partNumber,uploadId', 'PUT partNumber,uploadId', 'PUT partNumber,uploadId', 'POST uploadId']);
    expect(proxy.requests[0]!.headers['content-type']).to.equal('text/x-log');
    expect(ctx.metric('cloudw_object_storage_multipart_uploads_total')).to.equal(1);
  });

  it('a failed part aborts the upload, and the retry uploads the whole object again', async () => {
    const events = Array.from({ length: 6 }, (_, i) => log(randomText(1024 * 1024 - 1, 100 + i)));
    proxy.fault = (r) => (r.method === 'PUT' && r.query.get('partNumber') === '2' && !proxy.requests.some((x) => x.method === 'DELETE') ? 500 : undefined);
    const config = fast(s3Config(proxy.url, { key_prefix: 'mpf/', compression: 'none', encoding: { codec: 'text' }, multipart: { threshold_bytes: 5 * 1024 * 1024, part_size_bytes: 5 * 1024 * 1024 } }));
    const ds = await runSink(config, of(events));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    const calls = proxy.requests.map(call);
    expect(calls).to.deep.equal(['POST uploads', 'PUT partNumber,uploadId', 'PUT partNumber,uploadId', 'DELETE uploadId', 'POST uploads', 'PUT partNumber,uploadId', 'PUT partNumber,uploadId', 'POST uploadId']);
    const objects = await readObjects(reader, 'mpf/');
    expect(objects).to.have.length(1);
    expect(objects[0]!.body).to.equal(events.map((e) => e.fields.message).join('\n'));
  });

  it('proxy.http: the writes go through a forward proxy (tinyproxy), proxy.enabled = false goes direct', async function () {
    this.timeout(30_000);
    const tiny = await startTinyproxy();
    try {
      // tinyproxy logs a tunnel some time after it opened it: count the tunnels to the store it logged
      const host = `127.0.0.1:${proxy.port}`;
      const ds = await runSink(fast(s3Config(proxy.url, { key_prefix: 'px/', proxy: { http: tiny.url } })), of([log('via proxy')]));
      expect(ds[0]!.status).to.equal('delivered');
      await tiny.waitForRequestsTo(host, 1);
      // proxy.enabled = false: straight to the store; a proxied write after it marks where the log is
      await runSink(fast(s3Config(proxy.url, { key_prefix: 'px2/', proxy: { enabled: false, http: tiny.url } })), of([log('direct')]));
      const marker = await runSink(fast(s3Config(proxy.url, { key_prefix: 'px3/', proxy: { http: tiny.url } })), of([log('marker')]));
      expect(marker[0]!.status).to.equal('delivered');
      await tiny.waitForRequestsTo(host, 2);
      expect(tiny.requestsTo(host)).to.equal(2, tiny.connections().join('\n'));
      expect((await readObjects(reader, 'px')).map((o) => JSON.parse(o.body)[0].message)).to.deep.equal(['via proxy', 'direct', 'marker']);
    } finally {
      await tiny.stop();
    }
  });

  it('force_path_style = false addresses the bucket in the host name', async () => {
    // the SDK keeps path style for an IP address, so the endpoint is named
    const byName = proxy.url.replace('127.0.0.1', 'localhost');
    await runSink(fast(s3Config(byName, { force_path_style: false }), { retry_attempts: 0, timeout_secs: 2 }), of([log('a')]));
    // logs.localhost may or may not resolve here; either way no request names the bucket in its path
    expect(proxy.requests.filter((r) => r.path.startsWith(`/${BUCKET}/`))).to.deep.equal([]);
    for (const r of proxy.requests) expect(r.headers.host).to.match(new RegExp(`^${BUCKET}\\.localhost:`));
    await runSink(fast(s3Config(byName, { key_prefix: 'ps/' }), { retry_attempts: 0, timeout_secs: 2 }), of([log('a')]));
    expect(proxy.requests.filter((r) => r.path.startsWith(`/${BUCKET}/ps`))).to.have.length(1);
  });
});

/** A request as `<method> <query keys>` (the SDK's own `x-id` left out). */
const call = (r: { method: string; query: URLSearchParams }) => `${r.method} ${[...r.query.keys()].filter((k) => k !== 'x-id').join(',')}`;

/** `n` bytes of printable text that gzip cannot shrink much, different per seed. */
function randomText(n: number, seed: number): string {
  let x = seed * 2654435761 + 1;
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = 33 + ((x >>> 16) % 94);
  }
  return out.toString('latin1');
}
