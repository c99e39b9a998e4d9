/**
 * The cloudw_queue source against the queue emulator (fauxqs) behind a recording proxy: long
 * polls, decoding, deletion after delivery (end-to-end acknowledgements), redelivery of what was
 * not delivered, backpressure through the output gate, and the counted failures.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Subscription } from 'rxjs';
import * as v from 'valibot';
import { CloudwQueueSourceConfig } from '../../../../connectors/sources/cloudw_queue/config.js';
import { buildCloudwQueueSource } from '../../../../connectors/sources/cloudw_queue/source.js';
import { type EventBatch, type LogEvent, settleAll } from '../../../../lib/event.js';
import type { Timestamp } from '../../../../lib/value.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { type TestProxy, startTinyproxy } from '../../../helpers/tinyproxy.js';
import { until } from '../../../helpers/wait.js';
import { type Fauxqs, SQS_SIGV4, TEST_KEYS, startFauxqs } from '../../../peers/fauxqs.js';
import { type SqsProxy, startSqsProxy } from '../../../peers/sqs-proxy.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

describe('connectors/sources/cloudw_queue: receiving from the queue emulator', function () {
  this.timeout(60_000);
  let sqs: Fauxqs;
  let proxy: SqsProxy;
  let sub: Subscription | undefined;
  let q = 0;
  const queue = () => sqs.createQueue(`src${q++}`);
  const calls = (op: string) => proxy.calls.filter((c) => c.operation === op);

  before(async () => {
    sqs = await startFauxqs();
    proxy = await startSqsProxy(sqs.endpoint, { sigv4: SQS_SIGV4 });
  });
  after(async () => {
    await proxy.close();
    await sqs.close();
  });
  beforeEach(() => proxy.reset());
  afterEach(() => {
    sub?.unsubscribe();
    sub = undefined;
  });

  const config = (queueUrl: string, extra: Record<string, unknown> = {}) =>
    v.parse(CloudwQueueSourceConfig, { type: 'cloudw_queue', queue_url: queueUrl, endpoint: proxy.url, region: 'us-east-1', auth: { ...TEST_KEYS }, poll_secs: 1, client_concurrency: 1, ...extra });

  /** Starts the source; every batch it emits lands in the returned list. */
  function start(cfg: CloudwQueueSourceConfig, opts: { acks?: boolean } = {}): { ctx: TestSourceContext; batches: EventBatch[]; events: () => LogEvent[] } {
    const base = testSourceContext('cloudw_queue');
    const ctx = { ...base, acknowledgements: opts.acks ?? false } as TestSourceContext;
    const batches: EventBatch[] = [];
    sub = buildCloudwQueueSource(cfg, ctx).subscribe((b) => batches.push(b));
    return { ctx, batches, events: () => batches.flat() as LogEvent[] };
  }
  const messages = (events: LogEvent[]) => events.map((e) => e.fields.message as string).sort();

  it('acknowledgements on: N messages in, N events out once; each deleted only after its events are delivered; none left', async () => {
    const url = await queue();
    const bodies = Array.from({ length: 45 }, (_, i) => `msg-${String(i).padStart(2, '0')}`);
    await sqs.send(url, bodies);
    const { events, ctx } = start(config(url), { acks: true });
    await until(() => events().length === 45, 20_000, '45 events');
    expect(messages(events())).to.deep.equal(bodies);
    // nothing settled yet: nothing deleted, all in flight
    expect(calls('DeleteMessageBatch')).to.have.length(0);
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 45 });
    settleAll(events(), 'delivered');
    await until(() => calls('DeleteMessageBatch').reduce((n, c) => n + (c.body.Entries as unknown[]).length, 0) === 45, 10_000, '45 deletes');
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
    for (const c of calls('DeleteMessageBatch')) expect((c.body.Entries as unknown[]).length).to.be.at.most(10);
    expect(ctx.metric('component_received_bytes_total')).to.equal(bodies.reduce((n, b) => n + b.length, 0));
    expect(ctx.metric('queue_message_delete_failed_total')).to.equal(0);
  });

  it('an event settled rejected keeps its message, which comes back after visibility_timeout_secs; its siblings are deleted', async () => {
    const url = await queue();
    await sqs.send(url, ['keep', 'go-1', 'go-2']);
    const { events } = start(config(url, { visibility_timeout_secs: 1 }), { acks: true });
    await until(() => events().length === 3, 10_000, '3 events');
    const first = events();
    settleAll(first.filter((e) => e.fields.message !== 'keep'), 'delivered');
    settleAll(first.filter((e) => e.fields.message === 'keep'), 'rejected');
    await until(() => events().length === 4, 15_000, 'the rejected message to come back');
    const again = events()[3]!;
    expect(again.fields.message).to.equal('keep');
    settleAll([again], 'delivered');
    await until(() => calls('DeleteMessageBatch').reduce((n, c) => n + (c.body.Entries as unknown[]).length, 0) === 3, 10_000, '3 deletes');
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
    expect(messages(events())).to.deep.equal(['go-1', 'go-2', 'keep', 'keep']);
  });

  it('a copy of an event still pending holds the delete back (fan-out: every sink must deliver)', async () => {
    const url = await queue();
    await sqs.send(url, ['fan']);
    const { events } = start(config(url), { acks: true });
    await until(() => events().length === 1, 10_000, 'the event');
    const copy = events()[0]!.clone();
    settleAll(events(), 'delivered');
    // the other sink's copy is still out: a round trip of the test's own later shows no delete
    await sqs.depth(url);
    expect(calls('DeleteMessageBatch')).to.have.length(0);
    settleAll([copy], 'delivered');
    await until(() => calls('DeleteMessageBatch').length === 1, 10_000, 'the delete');
  });

  it('acknowledgements off: messages are deleted once emitted; delete_message = false leaves them', async () => {
    const url = await queue();
    await sqs.send(url, ['a', 'b']);
    const { events } = start(config(url));
    await until(() => events().length === 2, 10_000, '2 events');
    await until(() => calls('DeleteMessageBatch').length === 1, 10_000, 'the delete');
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
    sub!.unsubscribe();
    proxy.reset();

    const kept = await queue();
    await sqs.send(kept, ['c']);
    const r = start(config(kept, { delete_message: false, visibility_timeout_secs: 1 }), { acks: true });
    await until(() => r.events().length === 1, 10_000, 'the event');
    settleAll(r.events(), 'delivered');
    await until(() => r.events().length === 2, 15_000, 'the undeleted message to come back');
    expect(calls('DeleteMessageBatch')).to.have.length(0);
  });

  it('each receive asks for 10 messages with WaitTimeSeconds = poll_secs, VisibilityTimeout = visibility_timeout_secs and the SentTimestamp attribute', async () => {
    const url = await queue();
    start(config(url, { poll_secs: 0, visibility_timeout_secs: 77 }));
    await until(() => calls('ReceiveMessage').length >= 2, 10_000, 'two polls');
    expect(calls('ReceiveMessage')[0]!.body).to.deep.equal({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: 77,
      MessageSystemAttributeNames: ['SentTimestamp'],
    });
  });

  it('events: message is the body, timestamp the time the message was sent (SentTimestamp), source_type cloudw_queue', async () => {
    const url = await queue();
    await sqs.send(url, ['hello queue']);
    const peek = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 0, MessageSystemAttributeNames: ['SentTimestamp'] }));
    const sent = Number(peek.Messages![0]!.Attributes!.SentTimestamp);
    const { events } = start(config(url));
    await until(() => events().length === 1, 10_000, 'the event');
    const e = events()[0]!;
    expect(Object.keys(e.fields).sort()).to.deep.equal(['message', 'source_type', 'timestamp']);
    expect(e.fields.message).to.equal('hello queue');
    expect(e.fields.source_type).to.equal('cloudw_queue');
    expect((e.fields.timestamp as Timestamp).ms).to.equal(sent);
  });

  it('decoding and framing: json lines split by newline_delimited, max_length discards a long frame, a body that yields nothing is deleted', async () => {
    const url = await queue();
    const long = JSON.stringify({ a: 'x'.repeat(100) });
    await sqs.send(url, [`{"a":1}\n{"a":2,"timestamp":"2020-01-01T00:00:00Z"}\n${long}\n`, 'not json at all']);
    const cfg = config(url, { decoding: { codec: 'json' }, framing: { method: 'newline_delimited', newline_delimited: { max_length: 64 } } });
    const { events, ctx } = start(cfg, { acks: true });
    await until(() => events().length === 2, 10_000, '2 events');
    expect(events().map((e) => e.fields.a)).to.deep.equal([1, 2]);
    expect(String(events()[1]!.fields.timestamp)).to.equal('2020-01-01T00:00:00Z');
    expect((events()[0]!.fields.timestamp as Timestamp).ms).to.be.greaterThan(0);
    await until(() => ctx.metric('component_errors_total', { error_code: 'decoder_deserialize' }) === 1, 10_000, 'the decode error');
    expect(ctx.metric('component_errors_total', { error_code: 'decoder_frame' })).to.equal(1);
    // the undecodable message goes at once; the other once its events are delivered
    await until(() => calls('DeleteMessageBatch').length === 1, 10_000, 'the first delete');
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 1 });
    settleAll(events(), 'delivered');
    await until(() => calls('DeleteMessageBatch').length === 2, 10_000, 'the second delete');
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
  });

  it('decoding syslog with character_delimited framing: each frame one event', async () => {
    const url = await queue();
    await sqs.send(url, ['<34>1 2024-05-01T10:00:00Z web1 app 42 ID1 - first|<34>1 2024-05-01T10:00:01Z web2 app 43 ID2 - second']);
    const cfg = config(url, { decoding: { codec: 'syslog' }, framing: { method: 'character_delimited', character_delimited: { delimiter: '|' } } });
    const { events } = start(cfg);
    await until(() => events().length === 2, 10_000, '2 events');
    expect(events().map((e) => [e.fields.message, e.fields.hostname, e.fields.appname])).to.deep.equal([
      ['first', 'web1', 'app'],
      ['second', 'web2', 'app'],
    ]);
    expect(String(events()[1]!.fields.timestamp)).to.equal('2024-05-01T10:00:01Z');
  });

  it('client_concurrency: that many long polls run at once', async () => {
    const url = await queue();
    start(config(url, { client_concurrency: 3, poll_secs: 20 }));
    await until(() => calls('ReceiveMessage').length === 3, 10_000, 'three polls');
    // the three wait on the empty queue; a round trip of the test's own later no fourth has started
    await sqs.depth(url);
    await sqs.depth(url);
    expect(calls('ReceiveMessage')).to.have.length(3);
  });

  it('the output gate closed: polling stops; opened: it resumes', async () => {
    const url = await queue();
    const { ctx, events } = start(config(url, { poll_secs: 0 }));
    await until(() => calls('ReceiveMessage').length >= 3, 10_000, 'polls');
    ctx.gate.close();
    // the poll under way when the gate closed finishes; then none starts
    const settledCount = async () => {
      let last = -1;
      while (last !== calls('ReceiveMessage').length) {
        last = calls('ReceiveMessage').length;
        await sqs.depth(url);
      }
      return last;
    };
    const stopped = await settledCount();
    await sqs.send(url, ['while closed']);
    // the message stays on the queue for as long as the test looks: a full receive of its own sees it
    const peek = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 0, WaitTimeSeconds: 1 }));
    expect(peek.Messages?.map((m) => m.Body)).to.deep.equal(['while closed']);
    expect(calls('ReceiveMessage')).to.have.length(stopped);
    expect(events()).to.have.length(0);
    ctx.gate.open();
    await until(() => events().length === 1, 10_000, 'the message after the gate opened');
    expect(calls('ReceiveMessage').length).to.be.greaterThan(stopped);
  });

  it('shutdown: the source completes, also while it waits for the gate or on a long poll', async () => {
    for (const closeGate of [false, true]) {
      // a fresh queue: the emulator may hand a new message to the poll the first round aborted
      const url = await queue();
      proxy.reset();
      const base = testSourceContext('cloudw_queue');
      let completed = false;
      let got = 0;
      sub = buildCloudwQueueSource(config(url, { poll_secs: 20 }), base).subscribe({ next: (b) => (got += b.length), complete: () => (completed = true) });
      await until(() => calls('ReceiveMessage').length === 1, 10_000, 'the long poll');
      if (closeGate) {
        // the poll returns with a message; the loop then waits for the closed gate
        base.gate.close();
        await sqs.send(url, ['wake']);
        await until(() => got === 1, 10_000, 'the message');
      }
      base.shutdown.next();
      await until(() => completed, 10_000, 'completion');
      sub.unsubscribe();
    }
  });

  it('a failed delete is counted in queue_message_delete_failed_total and the message comes back', async () => {
    const url = await queue();
    await sqs.send(url, ['d1', 'd2']);
    proxy.fault = (c) => (c.operation === 'DeleteMessageBatch' ? 500 : undefined);
    const { events, ctx } = start(config(url, { visibility_timeout_secs: 1 }), { acks: true });
    await until(() => events().length === 2, 10_000, '2 events');
    settleAll(events(), 'delivered');
    await until(() => ctx.metric('queue_message_delete_failed_total') === 2, 10_000, 'the failed delete');
    expect(ctx.metric('component_errors_total', { error_type: 'writer_failed' })).to.equal(1);
    await until(() => events().length >= 4, 15_000, 'the messages to come back');
  });

  it('a failed receive is counted and logged, and polling goes on', async () => {
    const url = await queue();
    await sqs.send(url, ['after the error']);
    proxy.fault = (c, i) => (c.operation === 'ReceiveMessage' && i === 0 ? 503 : undefined);
    const { events, ctx } = start(config(url));
    await until(() => events().length === 1, 10_000, 'the event');
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'receiving' })).to.equal(1);
    expect(ctx.lines.some((l) => /Failed to receive messages from the queue/.test(l))).to.equal(true);
  });

  it('proxy: the calls go through the configured proxy', async () => {
    let tiny: TestProxy | undefined;
    try {
      tiny = await startTinyproxy();
      const url = await queue();
      await sqs.send(url, ['proxied']);
      const { events } = start(config(url, { endpoint: sqs.endpoint, proxy: { http: tiny.url } }));
      await until(() => events().length === 1, 10_000, 'the event');
      // tinyproxy logs a tunnel some time after it opened it
      await tiny.waitForRequestsTo(new URL(sqs.endpoint).host, 1);
    } finally {
      sub?.unsubscribe();
      await tiny?.stop();
    }
  });
  it('wrong credentials: every receive is refused and counted; no event', async () => {
    const url = await queue();
    await sqs.send(url, ['secret']);
    const { events, ctx } = start(config(url, { auth: { access_key_id: 'AKIDTEST', secret_access_key: 'wrong' } }));
    await until(() => ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'receiving' }) >= 1, 10_000, 'a refused receive');
    expect(events()).to.have.length(0);
    expect(await sqs.depth(url)).to.deep.equal({ visible: 1, inFlight: 0 });
  });

  it('credentials from a shared credentials file (auth.credentials_file, auth.profile)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-queue-creds-'));
    const file = join(dir, 'credentials');
    writeFileSync(file, '[default]\naws_access_key_id = WRONG\naws_secret_access_key = wrong\n\n[queue]\naws_access_key_id = AKIDTEST\naws_secret_access_key = secret\n');
    const url = await queue();
    await sqs.send(url, ['from file']);
    const { events } = start(config(url, { auth: { credentials_file: file, profile: 'queue' } }));
    await until(() => events().length === 1, 10_000, 'the event');
    expect(proxy.calls[0]!.headers.authorization).to.match(/Credential=AKIDTEST\//);
  });

  it('acknowledgements.enabled on the source itself: deletes wait for delivery', async () => {
    const url = await queue();
    await sqs.send(url, ['own switch']);
    const { events } = start(config(url, { acknowledgements: { enabled: true } }));
    await until(() => events().length === 1, 10_000, 'the event');
    await sqs.depth(url);
    expect(calls('DeleteMessageBatch')).to.have.length(0);
    settleAll(events(), 'delivered');
    await until(() => calls('DeleteMessageBatch').length === 1, 10_000, 'the delete');
  });
});

describe('connectors/sources/cloudw_queue: tls', function () {
  this.timeout(60_000);
  let sqs: Fauxqs;
  let proxy: SqsProxy;
  let certs: TestCerts;
  let sub: Subscription | undefined;
  before(async () => {
    certs = makeTestCerts();
    sqs = await startFauxqs();
    proxy = await startSqsProxy(sqs.endpoint, { sigv4: SQS_SIGV4, tls: { key: certs.read(certs.serverKey), cert: certs.read(certs.serverCrt) } });
  });
  after(async () => {
    sub?.unsubscribe();
    await proxy.close();
    await sqs.close();
    certs.remove();
  });

  it('an https endpoint trusted through tls.ca_file; without it every receive fails', async () => {
    const url = await sqs.createQueue('tls-src');
    await sqs.send(url, ['secure']);
    const parse = (tls: Record<string, unknown>) =>
      v.parse(CloudwQueueSourceConfig, { type: 'cloudw_queue', queue_url: url, endpoint: proxy.url, region: 'us-east-1', auth: { ...TEST_KEYS }, poll_secs: 1, client_concurrency: 1, tls });
    const untrusted = { ...testSourceContext('cloudw_queue') } as TestSourceContext;
    sub = buildCloudwQueueSource(parse({}), untrusted).subscribe();
    await until(() => untrusted.metric('component_errors_total', { error_type: 'request_failed', stage: 'receiving' }) >= 1, 10_000, 'a refused receive');
    sub.unsubscribe();
    const got: EventBatch[] = [];
    sub = buildCloudwQueueSource(parse({ ca_file: certs.caCrt }), testSourceContext('cloudw_queue')).subscribe((b) => got.push(b));
    await until(() => got.flat().length === 1, 10_000, 'the event');
    expect((got.flat()[0] as LogEvent).fields.message).to.equal('secure');
  });
});
