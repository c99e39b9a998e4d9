/**
 * The cloudg_pubsub source against the Pub/Sub emulator behind a recording pass-through: event
 * fields, acknowledgement after delivery, redelivery after `ack_deadline_secs`, codecs, the
 * output gate, and each scaling and retry option.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import * as v from 'valibot';
import { CloudgPubsubSourceConfig } from '../../../../connectors/sources/cloudg_pubsub/config.js';
import { buildCloudgPubsubSource } from '../../../../connectors/sources/cloudg_pubsub/source.js';
import { type EventBatch, type LogEvent, settleAll } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { SCOPES } from '../../../../connectors/shared/cloudg/auth.js';
import { makeTestCerts } from '../../../helpers/certs.js';
import { startTinyproxy } from '../../../helpers/tinyproxy.js';
import { until } from '../../../helpers/wait.js';
import { generateServiceAccount, startGoogleTokenPeer } from '../../../peers/google-token.js';
import { type PubsubEmulator, type RestSubscription, restSubscription, sharedPubsubEmulator } from '../../../peers/pubsub-emulator.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';
import { type Recorder, startRecorder } from './recorder.js';

describe('connectors/sources/cloudg_pubsub: pulling from the Pub/Sub emulator', function () {
  this.timeout(90_000);
  let emu: PubsubEmulator;
  let rec: Recorder;
  let sub: Subscription | undefined;
  let n = 0;
  const fresh = (ackDeadline = 600): Promise<RestSubscription> => restSubscription(emu, `src${n++}`, ackDeadline);
  const calls = (verb: string) => rec.calls.filter((c) => c.verb === verb);
  const ackIdsOf = (verb: string) => calls(verb).flatMap((c) => c.body.ackIds as string[]);

  before(async () => {
    emu = await sharedPubsubEmulator();
    rec = await startRecorder(emu.url);
  });
  after(() => rec.close());
  beforeEach(() => rec.reset());
  afterEach(() => {
    sub?.unsubscribe();
    sub = undefined;
  });

  const config = (s: RestSubscription, extra: Record<string, unknown> = {}) =>
    v.parse(CloudgPubsubSourceConfig, { type: 'cloudg_pubsub', project: 'weir-test', subscription: s.subscription, endpoint: rec.url, api_key: 'test-key', keepalive_secs: 5, ...extra });

  function start(cfg: CloudgPubsubSourceConfig, opts: { acks?: boolean } = {}): { ctx: TestSourceContext; events: () => LogEvent[] } {
    const base = testSourceContext('cloudg_pubsub');
    const ctx = { ...base, acknowledgements: opts.acks ?? false } as TestSourceContext;
    const batches: EventBatch[] = [];
    sub = buildCloudgPubsubSource(cfg, ctx).subscribe((b) => batches.push(b));
    return { ctx, events: () => batches.flat() as LogEvent[] };
  }
  const messages = (events: LogEvent[]) => events.map((e) => e.fields.message as string).sort();

  it('events carry message, attributes, message_id and the publish time as timestamp; bytes are counted; the api key is sent', async () => {
    const s = await fresh();
    const before = Date.now();
    const ids = await s.publish([{ data: 'hello pubsub', attributes: { region: 'eu', team: 'core' } }, { data: 'plain' }]);
    const { events, ctx } = start(config(s));
    await until(() => events().length === 2, 20_000, '2 events');
    const hello = events().find((e) => e.fields.message === 'hello pubsub')!;
    expect(Object.keys(hello.fields).sort()).to.deep.equal(['attributes', 'message', 'message_id', 'source_type', 'timestamp']);
    expect(hello.fields.attributes).to.deep.equal({ region: 'eu', team: 'core' });
    expect(hello.fields.message_id).to.equal(ids[0]);
    expect(hello.fields.source_type).to.equal('cloudg_pubsub');
    const t = hello.fields.timestamp as Timestamp;
    expect(t).to.be.instanceOf(Timestamp);
    expect(t.ms).to.be.within(before - 1000, Date.now());
    const plain = events().find((e) => e.fields.message === 'plain')!;
    expect(plain.fields.attributes).to.deep.equal({});
    expect(plain.fields.message_id).to.equal(ids[1]);
    expect(ctx.metric('component_received_bytes_total', { protocol: 'http' })).to.equal('hello pubsub'.length + 'plain'.length);
    expect(calls('pull')[0]!.query).to.equal('?key=test-key');
    expect(calls('pull')[0]!.body).to.deep.equal({ maxMessages: 1000 });
  });

  it('credentials_path: every call carries a token the key file obtained for the Pub/Sub scope; no api key', async () => {
    const tokens = await startGoogleTokenPeer();
    const dir = mkdtempSync(join(tmpdir(), 'weir-pubsub-key-'));
    try {
      const account = generateServiceAccount();
      tokens.trust(account);
      const s = await fresh();
      await s.publish([{ data: 'signed' }]);
      const cfg = v.parse(CloudgPubsubSourceConfig, { type: 'cloudg_pubsub', project: 'weir-test', subscription: s.subscription, endpoint: rec.url, credentials_path: account.writeKeyFile(dir, tokens.tokenUri) });
      const { events } = start(cfg);
      await until(() => events().length === 1 && ackIdsOf('acknowledge').length === 1, 20_000, 'the event and its acknowledgement');
      for (const verb of ['pull', 'modifyAckDeadline', 'acknowledge']) {
        const c = calls(verb)[0]!;
        expect(tokens.check(c.authorization, SCOPES.pubsub), verb).to.equal('ok');
        expect(c.query, verb).to.equal('');
      }
    } finally {
      sub?.unsubscribe();
      sub = undefined;
      await tokens.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('proxy.http carries the calls; proxy.enabled = false goes direct', async () => {
    const tiny = await startTinyproxy();
    try {
      const host = new URL(rec.url).host;
      const s = await fresh();
      await s.publish([{ data: 'via proxy' }]);
      const { events } = start(config(s, { proxy: { http: tiny.url } }));
      await until(() => events().length === 1 && ackIdsOf('acknowledge').length === 1, 20_000, 'the event and its acknowledgement');
      await tiny.waitForRequestsTo(host, 1);
      sub!.unsubscribe();
      const seen = tiny.requestsTo(host);
      const d = await fresh();
      await d.publish([{ data: 'direct' }]);
      const direct = start(config(d, { proxy: { enabled: false, http: tiny.url } }));
      await until(() => direct.events().length === 1, 20_000, 'the direct event');
      expect(tiny.requestsTo(host)).to.equal(seen);
    } finally {
      await tiny.stop();
    }
  });

  it('tls.ca_file: an https endpoint signed by a private CA is trusted; without it the pull fails and is counted', async () => {
    const certs = makeTestCerts();
    const front = await startRecorder(emu.url, { cert: certs.read(certs.serverCrt), key: certs.read(certs.serverKey) });
    try {
      const s = await fresh();
      await s.publish([{ data: 'over tls' }]);
      const base = { type: 'cloudg_pubsub', project: 'weir-test', subscription: s.subscription, endpoint: front.url, api_key: 'k', retry_delay_secs: 0.2 };
      const untrusted = start(v.parse(CloudgPubsubSourceConfig, base));
      await until(() => untrusted.ctx.metric('component_errors_total', { error_type: 'request_failed' }) >= 1, 10_000, 'a failed pull');
      expect(front.calls).to.have.length(0);
      sub!.unsubscribe();
      const trusted = start(v.parse(CloudgPubsubSourceConfig, { ...base, tls: { ca_file: certs.caCrt } }));
      await until(() => trusted.events().length === 1, 20_000, 'the event over https');
      expect(trusted.ctx.metric('component_received_bytes_total', { protocol: 'https' })).to.equal('over tls'.length);
    } finally {
      sub?.unsubscribe();
      sub = undefined;
      await front.close();
      certs.remove();
    }
  });

  it('acknowledgements on: each message is acknowledged only once its events are delivered; none is left', async () => {
    const s = await fresh();
    await s.publish(Array.from({ length: 30 }, (_, i) => ({ data: `m${i}` })));
    const { events } = start(config(s), { acks: true });
    await until(() => events().length === 30, 20_000, '30 events');
    // the emulator answered and the deadlines went out, but nothing is acknowledged before delivery
    await until(() => calls('modifyAckDeadline').length > 0, 10_000, 'the deadline call');
    expect(calls('acknowledge')).to.have.length(0);
    const half = events().slice(0, 15);
    settleAll(half, 'delivered');
    await until(() => ackIdsOf('acknowledge').length === 15, 10_000, '15 acknowledgements');
    settleAll(events().slice(15), 'delivered');
    await until(() => ackIdsOf('acknowledge').length === 30, 10_000, '30 acknowledgements');
    expect(new Set(ackIdsOf('acknowledge')).size).to.equal(30);
    expect(await s.peekAvailable()).to.equal(0);
  });

  it('a failing sink: the rejected message comes back after ack_deadline_secs (the subscription says 600), its sibling does not', async () => {
    const s = await fresh(600);
    await s.publish([{ data: 'keep' }, { data: 'go' }]);
    const { events } = start(config(s, { ack_deadline_secs: 10 }), { acks: true });
    await until(() => events().length === 2, 20_000, '2 events');
    await until(() => calls('modifyAckDeadline').length > 0, 10_000, 'the deadline call');
    expect(calls('modifyAckDeadline')[0]!.body.ackDeadlineSeconds).to.equal(10);
    settleAll(events().filter((e) => e.fields.message === 'go'), 'delivered');
    settleAll(events().filter((e) => e.fields.message === 'keep'), 'errored');
    await until(() => events().length === 3, 40_000, 'the rejected message to come back');
    const again = events()[2]!;
    expect(again.fields.message).to.equal('keep');
    // the same message, delivered again
    expect(again.fields.message_id).to.equal(events().find((e) => e.fields.message === 'keep')!.fields.message_id);
    settleAll([again], 'delivered');
    await until(() => ackIdsOf('acknowledge').length === 2, 10_000, '2 acknowledgements');
    expect(messages(events())).to.deep.equal(['go', 'keep', 'keep']);
  });

  it('acknowledgements off: messages are acknowledged once emitted', async () => {
    const s = await fresh();
    await s.publish([{ data: 'a' }, { data: 'b' }]);
    const { events } = start(config(s));
    await until(() => events().length === 2, 20_000, '2 events');
    await until(() => ackIdsOf('acknowledge').length === 2, 10_000, '2 acknowledgements');
    expect(await s.peekAvailable()).to.equal(0);
  });

  it('decoding json and newline framing: one message to several events, each with the attributes; an undecodable message is counted and acknowledged', async () => {
    const s = await fresh();
    await s.publish([{ data: '{"a":1}\n{"a":2}', attributes: { k: 'v' } }, { data: 'not json' }]);
    const { events, ctx } = start(config(s, { decoding: { codec: 'json' }, framing: { method: 'newline_delimited' } }), { acks: true });
    await until(() => events().length === 2, 20_000, '2 events');
    expect(events().map((e) => e.fields.a)).to.deep.equal([1, 2]);
    for (const e of events()) expect(e.fields.attributes).to.deep.equal({ k: 'v' });
    // each event owns its attributes
    expect(events()[0]!.fields.attributes).not.to.equal(events()[1]!.fields.attributes);
    expect(ctx.metric('component_errors_total', { error_code: 'decoder_deserialize' })).to.equal(1);
    // the undecodable message yields nothing: acknowledged at once
    await until(() => ackIdsOf('acknowledge').length === 1, 10_000, 'the undecodable message acknowledged');
    settleAll(events(), 'delivered');
    await until(() => ackIdsOf('acknowledge').length === 2, 10_000, 'both acknowledged');
  });

  it('a closed output gate stops the pulls; opening it resumes them', async () => {
    const s = await fresh();
    rec.holdPullsMs = 300;
    await s.publish([{ data: 'first' }]);
    const { events, ctx } = start(config(s));
    await until(() => events().length === 1, 20_000, 'the first event');
    ctx.gate.close();
    // the pull in flight when the gate closed still finishes (one may still be on its way to the
    // recorder: wait until none has been in flight there for a second); no other starts
    let quietSince = Date.now();
    await until(() => {
      if (rec.inFlight.now !== 0) quietSince = Date.now();
      return Date.now() - quietSince >= 1000;
    }, 20_000, 'the last pull to end');
    const pulls = calls('pull').length;
    await s.publish([{ data: 'second' }]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(calls('pull').length).to.equal(pulls);
    expect(events()).to.have.length(1);
    ctx.gate.open();
    await until(() => events().length === 2, 20_000, 'the second event');
  });

  it('a shutdown completes the source at once, also while the gate is closed; what was emitted is still acknowledged after delivery', async () => {
    const s = await fresh();
    rec.holdPullsMs = 300;
    await s.publish([{ data: 'held' }]);
    const base = testSourceContext('cloudg_pubsub');
    const ctx = { ...base, acknowledgements: true } as TestSourceContext;
    const got: LogEvent[] = [];
    let completed = false;
    sub = buildCloudgPubsubSource(config(s), ctx).subscribe({ next: (b) => got.push(...(b as LogEvent[])), complete: () => (completed = true) });
    await until(() => got.length === 1, 20_000, 'the event');
    ctx.gate.close();
    await until(() => rec.inFlight.now === 0, 10_000, 'the last pull to end');
    ctx.shutdown.next();
    await until(() => completed, 5_000, 'the source to complete');
    settleAll(got, 'delivered');
    await until(() => ackIdsOf('acknowledge').length === 1, 10_000, 'the acknowledgement after the shutdown');
  });

  it('retry_delay_secs: after a failed pull the next waits that long; the failure is counted', async () => {
    const s = await fresh();
    rec.failPulls(1);
    const { ctx } = start(config(s, { retry_delay_secs: 2.5 }));
    await until(() => calls('pull').length >= 2, 20_000, 'the second pull');
    const [a, b] = calls('pull');
    // the default (1 s) would pull again well before this
    expect(b!.at - a!.at).to.be.at.least(2400);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  /** Publishes one message every 20 ms until stopped, so that every loop keeps getting answers. */
  function trickle(s: RestSubscription): () => void {
    let i = 0;
    const timer = setInterval(() => void s.publish([{ data: `t${i++}` }]), 20);
    return () => clearInterval(timer);
  }

  it('full_response_size, poll_time_seconds and max_concurrency: busy loops add loops up to the maximum', async () => {
    const s = await fresh();
    rec.holdPullsMs = 200;
    const stop = trickle(s);
    try {
      // every answer of 1+ messages is full, so loops that get messages are busy and the scaler adds one per tick
      start(config(s, { full_response_size: 1, poll_time_seconds: 0.2, max_concurrency: 3 }));
      // with poll_time_seconds ignored (2 s) the third loop would take 4 s or more
      await until(() => rec.inFlight.peak === 3, 3_500, '3 pulls in flight');
      await new Promise((r) => setTimeout(r, 1000));
      expect(rec.inFlight.peak).to.equal(3);
    } finally {
      stop();
    }
  });

  it('full_response_size: answers smaller than it keep one loop', async () => {
    const s = await fresh();
    rec.holdPullsMs = 200;
    const stop = trickle(s);
    try {
      start(config(s, { poll_time_seconds: 0.1, max_concurrency: 3 }));
      await new Promise((r) => setTimeout(r, 2000));
      expect(calls('pull').length).to.be.greaterThan(3);
      expect(rec.inFlight.peak).to.equal(1);
    } finally {
      stop();
    }
  });

  it('keepalive_secs: an extra loop that got nothing for that long ends at its next empty answer; the last one keeps pulling', async () => {
    const s = await fresh();
    rec.holdPullsMs = 200;
    const stop = trickle(s);
    start(config(s, { full_response_size: 1, poll_time_seconds: 0.2, max_concurrency: 2, keepalive_secs: 1 }));
    try {
      await until(() => rec.inFlight.peak === 2, 5_000, '2 pulls in flight');
    } finally {
      stop();
    }
    // 1 s of nothing plus an empty answer (0.2 s): one loop ends; with keepalive_secs ignored (60 s) both would go on
    await new Promise((r) => setTimeout(r, 2500));
    rec.inFlight.peak = rec.inFlight.now;
    await new Promise((r) => setTimeout(r, 1000));
    expect(rec.inFlight.peak).to.equal(1);
    const pulls = calls('pull').length;
    await until(() => calls('pull').length >= pulls + 2, 5_000, 'the last loop to pull on');
  });
});
