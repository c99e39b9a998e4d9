/**
 * The cloudw_stream sink against kinesalite, read back with the official SDK client; the strict
 * front before it checks signatures, records each PutRecords call and fails chosen records, which
 * kinesalite never does.
 */
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { of } from 'rxjs';
import type { Delivery } from '../../../../lib/event.js';
import { cloudwStreamHealthcheck } from '../../../../connectors/sinks/cloudw_stream/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type KinesisFront, type Kinesalite, startKinesalite, startKinesisFront } from '../../../peers/kinesis-front.js';
import { FRONT_KEYS, count, fast, log, runSink, streamConfig } from './harness.js';

describe('connectors/sinks/cloudw_stream: putting records on the stream emulator', function () {
  this.timeout(60_000);
  let kinesis: Kinesalite;
  let front: KinesisFront;
  let n = 0;
  /** A fresh stream per test, so no test reads another's records. */
  const stream = async (shards = 2) => {
    const name = `s${n++}`;
    await kinesis.createStream(name, shards);
    return name;
  };
  const sizes = () => front.puts.map((p) => p.records.length);
  const messages = (events: readonly unknown[]) => events.map((e) => (e as ReturnType<typeof log>).fields.message);
  const recordBytes = (records: readonly { data: Buffer; partitionKey: string }[]) => records.reduce((n, r) => n + r.data.length + Buffer.byteLength(r.partitionKey), 0);
  const sentBytes = (ds: readonly Delivery[]) => ds.filter((d) => d.status === 'delivered').reduce((n, d) => n + d.bytes, 0);
  const stored = async (name: string) => (await kinesis.readAll(name)).map((r) => JSON.parse(r.data.toString('utf8')) as Record<string, unknown>);

  before(async () => {
    kinesis = await startKinesalite();
    front = await startKinesisFront(kinesis.url, FRONT_KEYS);
  });
  after(async () => {
    await front.close();
    await kinesis.close();
  });
  beforeEach(() => {
    front.puts.length = 0;
    front.requests.length = 0;
    front.failRecords = undefined;
    front.fault = undefined;
  });

  it('json: 1200 events go out in PutRecords calls of 500, 500, 200; each record is the event alone with a random 16-character key', async () => {
    const name = await stream();
    const events = Array.from({ length: 1200 }, (_, i) => log(`m${i}`, { i }));
    const ds = await runSink(fast(streamConfig(front.url, name)), of(events));
    expect(count(ds, 'delivered')).to.equal(1200);
    expect(sizes()).to.deep.equal([500, 500, 200]);
    expect(front.puts[0]!.stream).to.equal(name);
    const req = front.requests[0]!;
    expect(req.headers['x-amz-target']).to.equal('Kinesis_20131202.PutRecords');
    expect(req.headers['content-type']).to.equal('application/x-amz-json-1.1');
    const back = await stored(name);
    expect(back.map((r) => r.i).sort((a, b) => (a as number) - (b as number))).to.deep.equal(events.map((_, i) => i));
    expect(back.find((r) => r.i === 7)).to.deep.equal({ message: 'm7', i: 7 });
    const keys = front.puts.flatMap((p) => p.records.map((r) => r.partitionKey));
    expect(keys.every((k) => /^[A-Za-z0-9]{16}$/.test(k))).to.equal(true);
    expect(new Set(keys).size).to.be.greaterThan(1190);
    expect(new Set((await kinesis.readAll(name)).map((r) => r.shardId)).size).to.equal(2, 'random keys spread over the shards');
  });

  it('text: the record is the message field', async () => {
    const name = await stream();
    const ds = await runSink(fast(streamConfig(front.url, name, { encoding: { codec: 'text' } })), of([log('plain one', { other: 1 }), log('plain two')]));
    expect(count(ds, 'delivered')).to.equal(2);
    expect((await kinesis.readAll(name)).map((r) => r.data.toString()).sort()).to.deep.equal(['plain one', 'plain two']);
  });

  it('encoding.only_fields applies to each record', async () => {
    const name = await stream();
    await runSink(fast(streamConfig(front.url, name, { encoding: { codec: 'json', only_fields: ['message'] } })), of([log('x', { drop: 1 })]));
    expect(await stored(name)).to.deep.equal([{ message: 'x' }]);
  });

  it('compression gzip: each record is its own gzip stream', async () => {
    const name = await stream();
    const ds = await runSink(fast(streamConfig(front.url, name, { compression: 'gzip' })), of([log('a', { i: 1 }), log('b', { i: 2 })]));
    expect(count(ds, 'delivered')).to.equal(2);
    const back = await kinesis.readAll(name);
    expect(back.every((r) => r.data[0] === 0x1f && r.data[1] === 0x8b)).to.equal(true);
    expect(back.map((r) => JSON.parse(gunzipSync(r.data).toString()) as { message: string }).map((e) => e.message).sort()).to.deep.equal(['a', 'b']);
  });

  it('partition_key_field: the field is the key, cut at 256 characters; numbers as text; a missing field drops the event with a warning', async () => {
    const name = await stream();
    const ctx = testSinkContext('cloudw_stream');
    const long = 'é'.repeat(300);
    const ds = await runSink(
      fast(streamConfig(front.url, name, { partition_key_field: 'user.id' })),
      of([log('a', { user: { id: 'alice' } }), log('b', { user: { id: 42 } }), log('c', { user: { id: long } }), log('d'), log('e', { user: { id: '' } })]),
      ctx,
    );
    expect(count(ds, 'delivered')).to.equal(3);
    expect(count(ds, 'rejected')).to.equal(2);
    const keys = (await kinesis.readAll(name)).map((r) => r.partitionKey);
    expect(keys.sort()).to.deep.equal(['42', 'alice', 'é'.repeat(256)].sort());
    expect(ctx.metric('component_errors_total', { error_type: 'partition_key_missing' })).to.equal(2);
  });

  it('batch.max_events and batch.max_bytes close calls early', async () => {
    const name = await stream();
    await runSink(fast(streamConfig(front.url, name, { batch: { max_events: 3 } })), of(Array.from({ length: 7 }, (_, i) => log(`m${i}`))));
    expect(sizes()).to.deep.equal([3, 3, 1]);
    front.puts.length = 0;
    // each record is 16 bytes of JSON plus a 16-character key: 3 fit in 100 bytes
    await runSink(fast(streamConfig(front.url, name, { batch: { max_bytes: 100 } })), of(Array.from({ length: 7 }, (_, i) => log(`m${i}`))));
    expect(sizes()).to.deep.equal([3, 3, 1]);
  });

  it('a record over 1 MiB is rejected and counted; the others of its batch are sent', async () => {
    const name = await stream();
    const ctx = testSinkContext('cloudw_stream');
    const ds = await runSink(fast(streamConfig(front.url, name)), of([log('small'), log('x'.repeat(1024 * 1024)), log('small too')]), ctx);
    expect(count(ds, 'rejected')).to.equal(1);
    expect(count(ds, 'delivered')).to.equal(2);
    expect(ctx.metric('component_errors_total', { error_type: 'event_too_large' })).to.equal(1);
    expect((await stored(name)).map((r) => r.message).sort()).to.deep.equal(['small', 'small too']);
  });

  it('partial failure: only the failed records are sent again, with backoff, until none fail; nothing lost, nothing duplicated', async () => {
    const name = await stream();
    const ctx = testSinkContext('cloudw_stream');
    // call 0 fails records 1, 3, 5; call 1 (the three) fails its first again; call 2 sends that one
    front.failRecords = (call, i) => {
      if (i === 0) return new Map([1, 3, 5].map((k) => [k, 'ProvisionedThroughputExceededException']));
      if (i === 1) return new Map([[0, 'InternalFailure']]);
      return undefined;
    };
    const events = Array.from({ length: 8 }, (_, i) => log(`m${i}`, { i }));
    const ds = await runSink(fast(streamConfig(front.url, name, { partition_key_field: 'message' })), of(events), ctx);
    expect(sizes()).to.deep.equal([8, 3, 1]);
    expect(front.puts[1]!.records.map((r) => r.partitionKey)).to.deep.equal(['m1', 'm3', 'm5']);
    expect(front.puts[2]!.records.map((r) => r.partitionKey)).to.deep.equal(['m1']);
    expect(count(ds, 'delivered')).to.equal(8);
    expect(count(ds, 'rejected') + count(ds, 'errored')).to.equal(0);
    const back = (await stored(name)).map((r) => r.i as number).sort((a, b) => a - b);
    expect(back).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(ctx.metric('component_errors_total', { error_type: 'record_failed' })).to.equal(4);
  });

  it('records refused for good (a key-management error) are rejected and not sent again', async () => {
    const name = await stream();
    const ctx = testSinkContext('cloudw_stream');
    front.failRecords = (_, i) => (i === 0 ? new Map([[2, 'KMSAccessDeniedException']]) : undefined);
    const ds = await runSink(fast(streamConfig(front.url, name, { partition_key_field: 'message' })), of([log('a'), log('b'), log('c'), log('d')]), ctx);
    expect(count(ds, 'delivered')).to.equal(3);
    expect(ds.filter((d) => d.status === 'rejected').map((d) => messages(d.events)), 'one rejected delivery').to.deep.equal([['c']]);
    expect(sizes()).to.deep.equal([4]);
    expect(ctx.metric('component_errors_total', { error_type: 'record_refused' })).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
    // the bytes sent are those of the stored records: data plus key
    expect(sentBytes(ds)).to.equal(recordBytes(front.puts[0]!.records.filter((_, i) => i !== 2)));
    expect((await stored(name)).map((r) => r.message).sort()).to.deep.equal(['a', 'b', 'd']);
  });

  it('one record refused for good, one throttled, the others stored: the refused rejected once, only the throttled one sent again', async () => {
    const name = await stream();
    const ctx = testSinkContext('cloudw_stream');
    front.failRecords = (_, i) =>
      i === 0
        ? new Map([
            [1, 'KMSAccessDeniedException'],
            [3, 'ProvisionedThroughputExceededException'],
          ])
        : undefined;
    const ds = await runSink(fast(streamConfig(front.url, name, { partition_key_field: 'message' })), of(['a', 'b', 'c', 'd', 'e'].map((m) => log(m))), ctx);
    expect(sizes()).to.deep.equal([5, 1]);
    expect(front.puts[1]!.records.map((r) => r.partitionKey)).to.deep.equal(['d']);
    expect(ds.map((d) => [d.status, messages(d.events)])).to.deep.equal([
      ['delivered', ['a', 'c', 'e']],
      ['rejected', ['b']],
      ['delivered', ['d']],
    ]);
    expect(ds.map((d) => d.bytes)).to.deep.equal([recordBytes([0, 2, 4].map((i) => front.puts[0]!.records[i]!)), 0, recordBytes(front.puts[1]!.records)]);
    expect(ctx.metric('component_errors_total', { error_type: 'record_refused' })).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'record_failed' })).to.equal(1);
    expect((await stored(name)).map((r) => r.message).sort()).to.deep.equal(['a', 'c', 'd', 'e']);
  });

  it('wrong credentials: the front refuses the signature, nothing is retried or stored', async () => {
    const name = await stream();
    const ds = await runSink(fast(streamConfig(front.url, name, { auth: { access_key_id: FRONT_KEYS[0]!.accessKeyId, secret_access_key: 'wrong' } })), of([log('a')]));
    expect(count(ds, 'rejected')).to.equal(1);
    expect(front.requests).to.have.length(1);
    expect(await kinesis.readAll(name)).to.deep.equal([]);
  });

  it('a missing stream is a client error: rejected, not retried', async () => {
    const ds = await runSink(fast(streamConfig(front.url, 'no-such-stream')), of([log('a')]));
    expect(count(ds, 'rejected')).to.equal(1);
    expect(front.requests).to.have.length(1);
  });

  it('proxy.http: the calls go through the proxy (a CONNECT tunnel), and no_proxy bypasses it', async () => {
    const { startTinyproxy } = await import('../../../helpers/tinyproxy.js');
    const proxy = await startTinyproxy();
    try {
      const name = await stream();
      // tinyproxy logs a tunnel some time after it opened it: count the tunnels to the front it logged
      const host = new URL(front.url).host;
      const ds = await runSink(fast(streamConfig(front.url, name, { proxy: { http: proxy.url } })), of([log('via proxy')]));
      expect(count(ds, 'delivered')).to.equal(1);
      await proxy.waitForRequestsTo(host, 1);
      // no_proxy: straight to the front; a proxied call after it marks where the log is
      await runSink(fast(streamConfig(front.url, name, { proxy: { http: proxy.url, no_proxy: ['127.0.0.1'] } })), of([log('direct')]));
      const marker = await runSink(fast(streamConfig(front.url, name, { proxy: { http: proxy.url } })), of([log('marker')]));
      expect(count(marker, 'delivered')).to.equal(1);
      await proxy.waitForRequestsTo(host, 2);
      expect(proxy.requestsTo(host)).to.equal(2, proxy.connections().join('\n'));
      expect((await stored(name)).map((r) => r.message).sort()).to.deep.equal(['direct', 'marker', 'via proxy']);
    } finally {
      await proxy.stop();
    }
  });

  describe('health check', () => {
    const ctx = { globals: { proxy: {} } } as never;
    it('is healthy when DescribeStream describes stream_name', async () => {
      const name = await stream();
      await cloudwStreamHealthcheck(streamConfig(front.url, name), ctx);
      expect(front.requests.at(-1)?.headers['x-amz-target']).to.equal('Kinesis_20131202.DescribeStream');
      expect(JSON.parse(front.requests.at(-1)!.raw.toString())).to.deep.equal({ StreamName: name, Limit: 1 });
    });
    it('fails for a missing stream, and says which sources were tried without credentials', async () => {
      const err = await cloudwStreamHealthcheck(streamConfig(front.url, 'no-such-stream'), ctx).catch((e: unknown) => e);
      expect((err as Error).name).to.equal('ResourceNotFoundException');
      const cfg = streamConfig(front.url, 'x', { auth: { credentials_file: '/nonexistent/credentials', imds: { max_attempts: 1, connect_timeout_seconds: 0.2 } } });
      const saved = { ...process.env };
      for (const k of Object.keys(process.env)) if (/^(AWS|CLOUDW)_/.test(k)) delete process.env[k];
      process.env.CLOUDW_EC2_METADATA_DISABLED = 'true';
      process.env.CLOUDW_CONFIG_FILE = '/nonexistent/config';
      try {
        const none = await cloudwStreamHealthcheck(cfg, ctx).catch((e: unknown) => e);
        expect((none as Error).message).to.match(/^no credentials; tried: /);
      } finally {
        for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
        Object.assign(process.env, saved);
      }
    });
    it('does nothing when healthcheck.enabled is false', async () => {
      const before = front.requests.length;
      await cloudwStreamHealthcheck(streamConfig(front.url, 'no-such-stream', { healthcheck: { enabled: false } }), ctx);
      expect(front.requests.length).to.equal(before);
    });
  });
});
