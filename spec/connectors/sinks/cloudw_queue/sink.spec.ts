/**
 * The cloudw_queue sink against the queue emulator (fauxqs), read back with the official SDK
 * client; a recording proxy in front shows the SendMessageBatch calls and injects per-entry
 * failures the emulator never makes.
 */
import { expect } from 'chai';
import { of } from 'rxjs';
import type { LogEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { startTinyproxy } from '../../../helpers/tinyproxy.js';
import { type Fauxqs, SQS_SIGV4, startFauxqs } from '../../../peers/fauxqs.js';
import { type SqsProxy, startSqsProxy } from '../../../peers/sqs-proxy.js';
import { count, fast, log, queueConfig, runSink } from './harness.js';

describe('connectors/sinks/cloudw_queue: sending to the queue emulator', function () {
  this.timeout(60_000);
  let sqs: Fauxqs;
  let proxy: SqsProxy;
  let n = 0;
  /** A fresh queue per test, so no test sees another's messages. */
  const queue = (suffix = '', attributes?: Record<string, string>) => sqs.createQueue(`q${n++}${suffix}`, attributes);
  const batches = () => proxy.calls.filter((c) => c.operation === 'SendMessageBatch');
  const entries = (i: number) => (batches()[i]!.body.Entries as { Id: string; MessageBody: string; MessageGroupId?: string; MessageDeduplicationId?: string }[]);

  before(async () => {
    sqs = await startFauxqs();
    proxy = await startSqsProxy(sqs.endpoint, { sigv4: SQS_SIGV4 });
  });
  after(async () => {
    await proxy.close();
    await sqs.close();
  });
  beforeEach(() => proxy.reset());

  it('json: 25 events become 25 messages, at most 10 per SendMessageBatch call, each body the event alone', async () => {
    const url = await queue();
    const events = Array.from({ length: 25 }, (_, i) => log(`m${i}`, { i }));
    const ds = await runSink(fast(queueConfig(proxy.url, url)), of(events));
    expect(count(ds, 'delivered')).to.equal(25);
    const sizes = batches().map((c) => (c.body.Entries as unknown[]).length);
    expect(sizes).to.deep.equal([10, 10, 5]);
    expect(batches()[0]!.body.QueueUrl).to.equal(url);
    expect(batches()[0]!.headers['content-type']).to.equal('application/x-amz-json-1.0');
    const got = await sqs.receive(url, 25);
    const bodies = got.map((m) => JSON.parse(m.Body!) as { message: string; i: number }).sort((a, b) => a.i - b.i);
    expect(bodies.map((b) => b.message)).to.deep.equal(events.map((e) => e.fields.message));
    expect(bodies[3]).to.deep.equal({ message: 'm3', i: 3 });
  });

  it('text: the body is the message field', async () => {
    const url = await queue();
    const ds = await runSink(fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } })), of([log('plain one', { other: 1 }), log('plain two')]));
    expect(count(ds, 'delivered')).to.equal(2);
    const got = await sqs.receive(url, 2);
    expect(got.map((m) => m.Body).sort()).to.deep.equal(['plain one', 'plain two']);
  });

  it('encoding.except_fields, only_fields and timestamp_format shape the json body', async () => {
    const url = await queue();
    const at = new Timestamp(1_700_000_000_000);
    const cfg = fast(queueConfig(proxy.url, url, { encoding: { codec: 'json', except_fields: ['secret'], timestamp_format: 'unix' } }));
    await runSink(cfg, of([log('shaped', { secret: 's', timestamp: at })]));
    const cfg2 = fast(queueConfig(proxy.url, url, { encoding: { codec: 'json', only_fields: ['message'] } }));
    await runSink(cfg2, of([log('only', { other: 1 })]));
    const got = await sqs.receive(url, 2);
    expect(got.map((m) => JSON.parse(m.Body!) as Record<string, unknown>)).to.have.deep.members([{ message: 'shaped', timestamp: 1_700_000_000 }, { message: 'only' }]);
  });

  it('FIFO: message_group_id and message_deduplication_id render per event; an event missing a field is rejected and counted', async () => {
    const url = await queue('.fifo');
    const ctx = testSinkContext('cloudw_queue');
    const cfg = fast(queueConfig(proxy.url, url, { message_group_id: 'grp-{{ app }}', message_deduplication_id: '{{ id }}' }));
    const ds = await runSink(cfg, of([log('a', { app: 'web', id: 'd1' }), log('b', { app: 'db', id: 'd2' }), log('no app', { id: 'd3' }), log('c', { app: 'web', id: 'd4' })]), ctx);
    expect(count(ds, 'delivered')).to.equal(3);
    expect(count(ds, 'rejected')).to.equal(1);
    expect((ds.find((d) => d.status === 'rejected')!.events[0] as LogEvent).fields.message).to.equal('no app');
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
    expect(entries(0).map((e) => [e.MessageGroupId, e.MessageDeduplicationId])).to.deep.equal([
      ['grp-web', 'd1'],
      ['grp-db', 'd2'],
      ['grp-web', 'd4'],
    ]);
    const got = await sqs.receive(url, 3);
    const seen = got.map((m) => [JSON.parse(m.Body!).message, m.Attributes?.MessageGroupId, m.Attributes?.MessageDeduplicationId]);
    expect(seen).to.have.deep.members([
      ['a', 'grp-web', 'd1'],
      ['b', 'grp-db', 'd2'],
      ['c', 'grp-web', 'd4'],
    ]);
  });

  it('FIFO without a deduplication id: the queue refuses the entries (sender fault), rejected and not retried; content-based deduplication takes them', async () => {
    const strict = await queue('.fifo');
    const ctx = testSinkContext('cloudw_queue');
    const ds = await runSink(fast(queueConfig(proxy.url, strict, { message_group_id: 'g' })), of([log('x'), log('y')]), ctx);
    expect(count(ds, 'rejected')).to.equal(2);
    expect(count(ds, 'delivered')).to.equal(0);
    expect(batches()).to.have.length(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
    const content = await queue('.fifo', { ContentBasedDeduplication: 'true' });
    const ds2 = await runSink(fast(queueConfig(proxy.url, content, { message_group_id: 'g' })), of([log('x'), log('y')]));
    expect(count(ds2, 'delivered')).to.equal(2);
    expect((await sqs.receive(content, 2)).map((m) => m.Body).sort()).to.deep.equal(['{"message":"x"}', '{"message":"y"}']);
  });

  it('a message over 256 KiB is rejected and counted before sending; one of exactly 256 KiB goes out; calls stay within 256 KiB', async () => {
    const url = await queue();
    const ctx = testSinkContext('cloudw_queue');
    const cfg = fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } }));
    const big = 'a'.repeat(262_144);
    const ds = await runSink(cfg, of([log(big), log('b'.repeat(262_145)), log('c'.repeat(200_000)), log('d'.repeat(200_000))]), ctx);
    expect(count(ds, 'delivered')).to.equal(3);
    expect(count(ds, 'rejected')).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'event_too_large' })).to.equal(1);
    for (const c of batches()) {
      const bytes = (c.body.Entries as { MessageBody: string }[]).reduce((s, e) => s + Buffer.byteLength(e.MessageBody), 0);
      expect(bytes).to.be.at.most(262_144);
    }
    expect(batches()).to.have.length(3);
    const got = await sqs.receive(url, 3);
    expect(got.map((m) => m.Body!.length).sort()).to.deep.equal([200_000, 200_000, 262_144]);
  });

  it('a body with characters the service refuses is rejected alone (encoder_failed)', async () => {
    const url = await queue();
    const ctx = testSinkContext('cloudw_queue');
    const ds = await runSink(fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } })), of([log('ok'), log('bell\u0007'), log('\uD800 lone surrogate')]), ctx);
    expect(count(ds, 'delivered')).to.equal(1);
    expect(count(ds, 'rejected')).to.equal(2);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(2);
    expect((await sqs.receive(url, 1)).map((m) => m.Body)).to.deep.equal(['ok']);
  });

  it('per-entry failures of the service: only the failed entries are sent again; nothing lost, nothing twice', async () => {
    const url = await queue();
    proxy.fault = (c, i) => (c.operation === 'SendMessageBatch' && i === 0 ? { holdBack: ['1', '7'] } : undefined);
    const events = Array.from({ length: 10 }, (_, i) => log(`m${i}`));
    const ds = await runSink(fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } })), of(events));
    expect(count(ds, 'delivered')).to.equal(10);
    expect(batches()).to.have.length(2);
    expect(entries(1).map((e) => e.MessageBody)).to.deep.equal(['m1', 'm7']);
    const got = await sqs.receive(url, 10);
    expect(got.map((m) => m.Body).sort()).to.deep.equal(events.map((e) => e.fields.message).sort());
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
  });

  it('one message refused for good (over the queue\'s MaximumMessageSize): rejected once, not sent again; the others delivered with their bytes', async () => {
    const url = await queue('', { MaximumMessageSize: '1024' });
    const ctx = testSinkContext('cloudw_queue');
    const big = 'b'.repeat(2000);
    const ds = await runSink(fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } })), of([log('first'), log(big), log('third')]), ctx);
    expect(batches()).to.have.length(1);
    expect(ds.map((d) => [d.status, d.events.map((e) => (e as LogEvent).fields.message), d.bytes])).to.deep.equal([
      ['delivered', ['first', 'third'], 'first'.length + 'third'.length],
      ['rejected', [big], 0],
    ]);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
    expect((await sqs.receive(url, 2)).map((m) => m.Body).sort()).to.deep.equal(['first', 'third']);
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
  });

  it('one message refused for good, one failed by the service: only the failed one is sent again; each event settles once', async () => {
    const url = await queue('', { MaximumMessageSize: '1024' });
    const big = 'b'.repeat(2000);
    proxy.fault = (c, i) => (c.operation === 'SendMessageBatch' && i === 0 ? { holdBack: ['3'] } : undefined);
    const ds = await runSink(fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } })), of(['m0', big, 'm2', 'm3'].map((m) => log(m))));
    expect(batches()).to.have.length(2);
    expect(entries(1).map((e) => e.MessageBody)).to.deep.equal(['m3']);
    expect(ds.map((d) => [d.status, d.events.map((e) => (e as LogEvent).fields.message)])).to.deep.equal([
      ['delivered', ['m0', 'm2']],
      ['rejected', [big]],
      ['delivered', ['m3']],
    ]);
    expect((await sqs.receive(url, 3)).map((m) => m.Body).sort()).to.deep.equal(['m0', 'm2', 'm3']);
  });

  for (const fault of ['throttle', 500, 503, 'reset', 'stall'] as const) {
    it(`fault "${fault}" on the first two calls: retried, every message arrives once`, async () => {
      const url = await queue();
      proxy.fault = (c, i) => (c.operation === 'SendMessageBatch' && i < 2 ? fault : undefined);
      const events = Array.from({ length: 12 }, (_, i) => log(`f${i}`));
      const ds = await runSink(fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } }), { timeout_secs: 1 }), of(events));
      expect(count(ds, 'delivered')).to.equal(12);
      expect(count(ds, 'rejected') + count(ds, 'errored')).to.equal(0);
      expect(batches().length).to.be.at.least(4);
      const got = await sqs.receive(url, 12);
      expect(got.map((m) => m.Body).sort()).to.deep.equal(events.map((e) => e.fields.message).sort());
      expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
    });
  }

  it('a queue that does not exist: rejected at once, not retried', async () => {
    const ctx = testSinkContext('cloudw_queue');
    const missing = `${sqs.endpoint}/000000000000/no-such-queue`;
    const ds = await runSink(fast(queueConfig(proxy.url, missing)), of([log('x'), log('y')]), ctx);
    expect(count(ds, 'rejected')).to.equal(2);
    expect(batches()).to.have.length(1);
  });

  it('retry_attempts bounds the retries of a queue that keeps failing', async () => {
    const url = await queue();
    proxy.fault = (c) => (c.operation === 'SendMessageBatch' ? 500 : undefined);
    const ds = await runSink(fast(queueConfig(proxy.url, url, { request: { retry_attempts: 2 } })), of([log('x')]));
    expect(count(ds, 'errored')).to.equal(1);
    expect(batches()).to.have.length(3);
  });

  it('request.rate_limit_num: calls beyond the window wait for the next one', async () => {
    const url = await queue();
    const times: number[] = [];
    proxy.fault = (c) => void (c.operation === 'SendMessageBatch' && times.push(Date.now()));
    const events = Array.from({ length: 30 }, (_, i) => log(`r${i}`));
    const cfg = fast(queueConfig(proxy.url, url, { encoding: { codec: 'text' } }), { rate_limit_num: 2, rate_limit_duration_secs: 2 });
    const ds = await runSink(cfg, of(events));
    expect(count(ds, 'delivered')).to.equal(30);
    expect(times).to.have.length(3);
    // the third call starts no sooner than the second window (2 s after the first); the bound
    // leaves a second for the first call's own way to the proxy, which a busy machine can delay
    expect(times[2]! - times[0]!).to.be.at.least(1000);
    await sqs.receive(url, 30);
  });
  it('wrong credentials: the queue refuses the signature; rejected, not retried', async () => {
    const url = await queue();
    const ds = await runSink(fast(queueConfig(proxy.url, url, { auth: { access_key_id: 'AKIDTEST', secret_access_key: 'wrong' } })), of([log('x')]));
    expect(count(ds, 'rejected')).to.equal(1);
    expect(batches()).to.have.length(1);
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
  });

  it('credentials from the CLOUDW_* variables when auth sets none', async () => {
    const url = await queue();
    const saved = { id: process.env.CLOUDW_ACCESS_KEY_ID, secret: process.env.CLOUDW_SECRET_ACCESS_KEY };
    process.env.CLOUDW_ACCESS_KEY_ID = 'AKIDTEST';
    process.env.CLOUDW_SECRET_ACCESS_KEY = 'secret';
    try {
      const cfg = queueConfig(proxy.url, url);
      cfg.auth = {} as typeof cfg.auth;
      const ds = await runSink(fast(cfg), of([log('from env')]));
      expect(count(ds, 'delivered')).to.equal(1);
    } finally {
      for (const [k, val] of [['CLOUDW_ACCESS_KEY_ID', saved.id], ['CLOUDW_SECRET_ACCESS_KEY', saved.secret]] as const)
        if (val === undefined) delete process.env[k];
        else process.env[k] = val;
    }
    expect(batches()[0]!.headers.authorization).to.match(/Credential=AKIDTEST\/\d{8}\/us-east-1\/sqs\/aws4_request/);
  });

  it('request.headers go on every call', async () => {
    const url = await queue();
    const ds = await runSink(fast(queueConfig(proxy.url, url, { request: { headers: { 'x-weir-test': 'yes' } } })), of([log('h')]));
    expect(count(ds, 'delivered')).to.equal(1);
    expect(batches()[0]!.headers['x-weir-test']).to.equal('yes');
  });

  it('proxy: the calls go through the configured proxy', async () => {
    const tiny = await startTinyproxy();
    try {
      const url = await queue();
      const ds = await runSink(fast(queueConfig(sqs.endpoint, url, { proxy: { http: tiny.url } })), of([log('proxied')]));
      expect(count(ds, 'delivered')).to.equal(1);
      // tinyproxy logs a tunnel some time after it opened it
      await tiny.waitForRequestsTo(new URL(sqs.endpoint).host, 1);
      expect((await sqs.receive(url, 1)).map((m) => m.Body)).to.deep.equal(['{"message":"proxied"}']);
    } finally {
      await tiny.stop();
    }
  });
});

describe('connectors/sinks/cloudw_queue: tls', function () {
  this.timeout(60_000);
  let sqs: Fauxqs;
  let proxy: SqsProxy;
  let certs: TestCerts;
  before(async () => {
    certs = makeTestCerts();
    sqs = await startFauxqs();
    proxy = await startSqsProxy(sqs.endpoint, { sigv4: SQS_SIGV4, tls: { key: certs.read(certs.serverKey), cert: certs.read(certs.serverCrt), ca: certs.read(certs.caCrt), requestCert: true } });
  });
  after(async () => {
    await proxy.close();
    await sqs.close();
    certs.remove();
  });

  it('an https endpoint: trusted through tls.ca_file, with the client identity of tls.crt_file and tls.key_file', async () => {
    const url = await sqs.createQueue('tls-ok');
    const cfg = fast(queueConfig(proxy.url, url, { tls: { ca_file: certs.caCrt, crt_file: certs.clientCrt, key_file: certs.clientKey } }));
    const ds = await runSink(cfg, of([log('over tls')]));
    expect(count(ds, 'delivered')).to.equal(1);
    expect((await sqs.receive(url, 1)).map((m) => m.Body)).to.deep.equal(['{"message":"over tls"}']);
  });

  it('without the CA, or without a client identity, the connection is refused and nothing is sent', async () => {
    const url = await sqs.createQueue('tls-refused');
    const noCa = await runSink(fast(queueConfig(proxy.url, url, { tls: { crt_file: certs.clientCrt, key_file: certs.clientKey }, request: { retry_attempts: 1 } })), of([log('a')]));
    expect(count(noCa, 'delivered')).to.equal(0);
    const noIdentity = await runSink(fast(queueConfig(proxy.url, url, { tls: { ca_file: certs.caCrt }, request: { retry_attempts: 1 } })), of([log('b')]));
    expect(count(noIdentity, 'delivered')).to.equal(0);
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
  });
});
