/**
 * The `cloudw_monitor_logs` sink against the strict CloudWatch Logs server: every option changes
 * what reaches the server, groups and streams are created as the options allow, and no call breaks
 * a service limit.
 */
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { of } from 'rxjs';
import { BatchNotifier, EventMetadata, MetricEvent, attachNotifier } from '../../../../lib/event.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type CloudwatchLogsPeer, startCloudwatchLogs } from '../../../peers/cloudwatch-logs.js';
import { awsError, count, fast, log, logsConfig, operation, runSink } from './harness.js';

const HOUR = 3_600_000;

describe('connectors/sinks/cloudw_monitor_logs: the sink against a strict CloudWatch Logs server', () => {
  let peer: CloudwatchLogsPeer;
  let now: number;
  before(async () => {
    peer = await startCloudwatchLogs();
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.groups.clear();
    peer.puts.length = 0;
    peer.operations.length = 0;
    peer.requests.length = 0;
    peer.fault = undefined;
    now = Date.now();
  });
  const config = (extra: Record<string, unknown> = {}) => fast(logsConfig(peer.url, extra));

  it('json (the default): each event as a JSON object without its timestamp, which travels beside it; sorted by timestamp', async () => {
    peer.createStream('app', 'web');
    const ds = await runSink(config(), of([log('b', now - 1000, { host: 'h1' }), log('a', now - 2000, { host: 'h1' }), log('c', now, { host: 'h1' })]));
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 3]]);
    expect(peer.events('app', 'web')).to.deep.equal([
      { timestamp: now - 2000, message: '{"message":"a","host":"h1"}' },
      { timestamp: now - 1000, message: '{"message":"b","host":"h1"}' },
      { timestamp: now, message: '{"message":"c","host":"h1"}' },
    ]);
    expect(peer.operations).to.deep.equal(['PutLogEvents']);
    expect(peer.requests[0]!.headers['content-encoding']).to.equal(undefined);
  });

  it('encoding: ndjson writes the same one-line JSON, text writes the message; except_fields leaves fields out; no timestamp means now', async () => {
    peer.createStream('app', 'web');
    await runSink(config({ encoding: { codec: 'ndjson', except_fields: ['secret'] } }), of([log('a', now, { secret: 's', n: 1 })]));
    await runSink(config({ encoding: { codec: 'text' } }), of([log('plain text', now, { n: 1 })]));
    const before = Date.now();
    await runSink(config({ encoding: { codec: 'text' } }), of([log('no time', null)]));
    const stored = peer.events('app', 'web');
    expect(stored.map((e) => e.message)).to.deep.equal(['{"message":"a","n":1}', 'plain text', 'no time']);
    expect(stored[2]!.timestamp).to.be.within(before - 1, Date.now());
  });

  it('group_name and stream_name are templates: one batch and one call per group and stream', async () => {
    const ds = await runSink(
      config({ group_name: 'app-{{ env }}', stream_name: '{{ host }}' }),
      of([log('1', now, { env: 'prod', host: 'a' }), log('2', now, { env: 'prod', host: 'b' }), log('3', now, { env: 'dev', host: 'a' }), log('4', now, { env: 'prod', host: 'a' })]),
    );
    expect(count(ds, 'delivered')).to.equal(4);
    expect(peer.events('app-prod', 'a').map((e) => JSON.parse(e.message).message)).to.deep.equal(['1', '4']);
    expect(peer.events('app-prod', 'b')).to.have.length(1);
    expect(peer.events('app-dev', 'a')).to.have.length(1);
    expect(peer.puts).to.have.length(3);
  });

  it('an event whose group or stream does not render, or renders to a name the service refuses, is rejected alone and counted', async () => {
    const ctx = testSinkContext('cloudw_monitor_logs');
    const events = [log('ok', now, { host: 'a', app: 'g' }), log('no host', now, { app: 'g' }), log('bad stream', now, { host: 'a:b', app: 'g' }), log('bad group', now, { host: 'a', app: 'my app' })];
    const ds = await runSink(config({ group_name: '{{ app }}', stream_name: '{{ host }}' }), of(events), ctx);
    expect(count(ds, 'delivered')).to.equal(1);
    expect(count(ds, 'rejected')).to.equal(3);
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(3);
    expect(peer.events('g', 'a')).to.have.length(1);
  });

  it('create_missing_group (default true): CreateLogGroup, then the first stream, then the events are sent again', async () => {
    const ds = await runSink(config(), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(peer.requests.map((r) => operation(r.headers))).to.deep.equal(['PutLogEvents', 'DescribeLogStreams', 'CreateLogGroup', 'CreateLogStream', 'PutLogEvents']);
    expect(peer.events('app', 'web')).to.have.length(1);
  });

  it('a created group gets kms_key, tags and, with retention.enabled, its retention policy; without them none', async () => {
    const ds = await runSink(config({ kms_key: 'arn:aws:kms:us-east-1:000000000000:key/k', tags: { team: 'obs' }, retention: { enabled: true, days: 30 } }), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    // operations the server accepted (the first PutLogEvents and DescribeLogStreams found nothing)
    expect(peer.operations).to.deep.equal(['CreateLogGroup', 'PutRetentionPolicy', 'CreateLogStream', 'PutLogEvents']);
    const g = peer.groups.get('app')!;
    expect([g.kmsKeyId, g.tags, g.retentionInDays]).to.deep.equal(['arn:aws:kms:us-east-1:000000000000:key/k', { team: 'obs' }, 30]);
    await runSink(config({ group_name: 'plain', retention: { enabled: false, days: 30 } }), of([log('b', now)]));
    const plain = peer.groups.get('plain')!;
    expect([plain.kmsKeyId, plain.tags, plain.retentionInDays]).to.deep.equal([undefined, undefined, undefined]);
  });

  it('create_missing_group = false: a missing group rejects the batch at once, nothing is created', async () => {
    const ctx = testSinkContext('cloudw_monitor_logs');
    const ds = await runSink(config({ create_missing_group: false }), of([log('a', now), log('b', now)]), ctx);
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['rejected', 2]]);
    expect(peer.requests.map((r) => operation(r.headers))).to.deep.equal(['PutLogEvents', 'DescribeLogStreams']);
    expect(peer.groups.size).to.equal(0);
  });

  it('create_missing_stream (default true) creates a missing stream in an existing group; false rejects', async () => {
    peer.createGroup('app');
    peer.createStream('app', 'web-2'); // a stream the prefix lookup finds first must not count as "web"
    peer.groups.get('app')!.streams.delete('web-2');
    peer.createStream('app', 'webx');
    const rejected = await runSink(config({ create_missing_stream: false }), of([log('a', now)]));
    expect(rejected.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(peer.groups.get('app')!.streams.has('web')).to.equal(false);
    const ds = await runSink(config(), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(peer.requests.slice(2).map((r) => operation(r.headers))).to.deep.equal(['PutLogEvents', 'DescribeLogStreams', 'CreateLogStream', 'PutLogEvents']);
    expect(peer.events('app', 'web')).to.have.length(1);
  });

  it('ResourceAlreadyExistsException from a create (another writer was faster) counts as created', async () => {
    peer.fault = (req) => {
      if (operation(req.headers) !== 'CreateLogGroup') return undefined;
      peer.createStream('app', 'other');
      return awsError('ResourceAlreadyExistsException');
    };
    const ds = await runSink(config(), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(peer.events('app', 'web')).to.have.length(1);
  });

  it('batches over 24 hours are cut into calls that each span less; every event arrives once, in order', async () => {
    peer.createStream('app', 'web');
    const times = [now - 50 * HOUR, now - 30 * HOUR, now - 26 * HOUR, now - 25 * HOUR, now - 2 * HOUR, now];
    const ds = await runSink(config(), of(times.slice().reverse().map((t, i) => log(String(i), t))));
    expect(count(ds, 'delivered')).to.equal(6);
    expect(peer.events('app', 'web').map((e) => e.timestamp)).to.deep.equal(times);
    for (const p of peer.puts) expect(p.events.at(-1)!.timestamp - p.events[0]!.timestamp).to.be.below(24 * HOUR);
    expect(peer.puts.length).to.equal(3);
  });

  it('a shuffled 40-event run: every call is sorted within itself, so the strict server refuses none', async () => {
    peer.createStream('app', 'web');
    // 40 events over 39 hours, two at each time, in a fixed shuffled order (a seeded LCG)
    const times = Array.from({ length: 40 }, (_, i) => now - (39 - i) * HOUR - (i % 2 === 0 ? 0 : HOUR));
    const order = times.map((_, i) => i);
    let seed = 20261207;
    for (let i = order.length - 1; i > 0; i--) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      const j = seed % (i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const events = order.map((i) => log(`e${i}`, times[i]!));
    expect(order.some((i, k) => k > 0 && times[i]! < times[order[k - 1]!]!)).to.equal(true);
    const ds = await runSink(config({ encoding: { codec: 'text' }, batch: { max_events: 9 } }), of(events));
    expect(count(ds, 'delivered')).to.equal(40);
    expect(count(ds, 'rejected') + count(ds, 'errored')).to.equal(0);
    const sent = peer.requests.filter((r) => operation(r.headers) === 'PutLogEvents');
    // every PutLogEvents the sink sent was accepted: none came back as InvalidParameterException
    expect(sent.length).to.equal(peer.puts.length);
    for (const p of peer.puts) {
      for (let i = 1; i < p.events.length; i++) expect(p.events[i]!.timestamp).to.be.at.least(p.events[i - 1]!.timestamp);
      expect(p.events.at(-1)!.timestamp - p.events[0]!.timestamp).to.be.below(24 * HOUR);
    }
    expect(peer.events('app', 'web').map((e) => e.message).sort()).to.deep.equal(times.map((_, i) => `e${i}`).sort());
  });

  it('batch.max_bytes counts message bytes + 26: 1,048,576 bytes of 4 KiB events make calls the server takes', async () => {
    peer.createStream('app', 'web');
    const message = 'x'.repeat(4096 - 26 - 2);
    const events = Array.from({ length: 600 }, (_, i) => log(message + String(i).padStart(2, '0').slice(-2), now));
    const ds = await runSink(config({ encoding: { codec: 'text' } }), of(events));
    expect(count(ds, 'delivered')).to.equal(600);
    expect(peer.puts.map((p) => p.events.length)).to.deep.equal([256, 256, 88]);
    const small = await runSink(config({ batch: { max_events: 2 } }), of([log('a', now), log('b', now), log('c', now)]));
    expect(count(small, 'delivered')).to.equal(3);
    expect(peer.puts.slice(3).map((p) => p.events.length)).to.deep.equal([2, 1]);
  });

  it('batch.max_events defaults to the service limit of 10,000 events per call', async () => {
    peer.createStream('app', 'web');
    const ds = await runSink(config({ encoding: { codec: 'text' } }), of(Array.from({ length: 10_001 }, (_, i) => log(`e${i}`, now))));
    expect(count(ds, 'delivered')).to.equal(10_001);
    expect(peer.puts.map((p) => p.events.length)).to.deep.equal([10_000, 1]);
  });

  it('events older than 14 days or 2 h or more ahead are dropped before sending, counted as intentional discards, and settled', async () => {
    peer.createStream('app', 'web');
    const ctx = testSinkContext('cloudw_monitor_logs');
    const old = log('old', now - 15 * 24 * HOUR);
    const ahead = log('ahead', now + 3 * HOUR);
    // a source waiting for acknowledgements hears "delivered" for the dropped ones
    const settled: string[] = [];
    const notifier = new BatchNotifier((status) => settled.push(status));
    attachNotifier([old, ahead], notifier);
    const ds = await runSink(config(), of([old, log('ok', now), ahead]), ctx);
    expect(settled).to.deep.equal(['delivered']);
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 1]]);
    expect(peer.events('app', 'web').map((e) => e.message)).to.deep.equal(['{"message":"ok"}']);
    expect(ctx.metric('component_discarded_events_total', { intentional: 'true' })).to.equal(2);
    expect(peer.refusedEvents).to.equal(0);
    const all = await runSink(config(), of([log('old', now - 15 * 24 * HOUR)]), ctx);
    expect(all.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 0]]);
    expect(peer.puts).to.have.length(1);
  });

  it('compression = "gzip" sends gzipped bodies with Content-Encoding: gzip, signed as sent', async () => {
    peer.createStream('app', 'web');
    const ds = await runSink(config({ compression: 'gzip' }), of([log('zipped', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    const req = peer.requests[0]!;
    expect(req.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(gunzipSync(req.raw).toString()).logEvents[0].message).to.equal('{"message":"zipped"}');
    expect(peer.events('app', 'web')).to.have.length(1);
  });

  it('metric events, empty messages and messages over 256 KiB are rejected alone and counted', async () => {
    peer.createStream('app', 'web');
    const ctx = testSinkContext('cloudw_monitor_logs');
    const metric = new MetricEvent('m', 'incremental', { type: 'counter', value: 1 }, new EventMetadata('in', 'test'));
    const ds = await runSink(config({ encoding: { codec: 'text' } }), of([metric, log('', now), log('y'.repeat(262_144), now), log('fine', now)]), ctx);
    expect(count(ds, 'rejected')).to.equal(3);
    expect(count(ds, 'delivered')).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(3);
  });
});
