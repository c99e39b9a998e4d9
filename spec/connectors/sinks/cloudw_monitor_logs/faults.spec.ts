/**
 * `cloudw_monitor_logs` under faults: throttling, 5xx,
 * resets and stalls are retried until every event is stored; a call the service refuses is not;
 * calls of a request already accepted are not sent again.
 */
import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type CloudwatchLogsPeer, startCloudwatchLogs } from '../../../peers/cloudwatch-logs.js';
import { awsError, count, fast, log, logsConfig, operation, runSink } from './harness.js';

const HOUR = 3_600_000;

describe('connectors/sinks/cloudw_monitor_logs: retries and faults', () => {
  let peer: CloudwatchLogsPeer;
  let now: number;
  before(async () => {
    peer = await startCloudwatchLogs();
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.groups.clear();
    peer.puts.length = 0;
    peer.requests.length = 0;
    peer.fault = undefined;
    peer.createStream('app', 'web');
    now = Date.now();
  });
  const config = (extra: Record<string, unknown> = {}, request = {}) => fast(logsConfig(peer.url, extra), request);
  const puts = () => peer.requests.filter((r) => operation(r.headers) === 'PutLogEvents');

  const faults = {
    ThrottlingException: awsError('ThrottlingException'),
    ServiceUnavailableException: awsError('ServiceUnavailableException', 500),
    'plain 503': 503,
    'connection reset': 'reset',
  } as const;
  for (const [name, fault] of Object.entries(faults)) {
    it(`${name} is retried with the same events until stored, and counted`, async () => {
      let n = 0;
      peer.fault = () => (n++ < 2 ? fault : undefined);
      const ctx = testSinkContext('cloudw_monitor_logs');
      const ds = await runSink(config(), of([log('a', now), log('b', now)]), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 2]]);
      expect(puts()).to.have.length(3);
      expect(peer.events('app', 'web').map((e) => e.message)).to.deep.equal(['{"message":"a"}', '{"message":"b"}']);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
    });
  }

  it('a stall past request.timeout_secs aborts the call and retries it', async () => {
    let n = 0;
    peer.fault = () => (n++ === 0 ? 'stall' : undefined);
    const ds = await runSink(config({}, { timeout_secs: 0.3 }), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(puts()).to.have.length(2);
    expect(peer.events('app', 'web')).to.have.length(1);
  });

  it('InvalidParameterException is rejected at once, not retried, and counted', async () => {
    peer.fault = () => awsError('InvalidParameterException');
    const ctx = testSinkContext('cloudw_monitor_logs');
    const ds = await runSink(config(), of([log('a', now), log('b', now)]), ctx);
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['rejected', 2]]);
    expect(puts()).to.have.length(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
  });

  it('wrong credentials: the server refuses the signature and the batch is rejected, not retried', async () => {
    const ds = await runSink(config({ auth: { access_key_id: 'AKIDWEIRTEST', secret_access_key: 'wrong' } }), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(peer.requests).to.have.length(1);
    expect(peer.events('app', 'web')).to.have.length(0);
  });

  it('a stream just created but not yet visible (ResourceNotFound again) is retried, not rejected', async () => {
    peer.groups.clear();
    let puts = 0;
    peer.fault = (req) => (operation(req.headers) === 'PutLogEvents' && ++puts === 2 ? awsError('ResourceNotFoundException') : undefined);
    const ds = await runSink(config(), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(peer.requests.map((r) => operation(r.headers))).to.deep.equal(['PutLogEvents', 'DescribeLogStreams', 'CreateLogGroup', 'CreateLogStream', 'PutLogEvents', 'PutLogEvents']);
    expect(peer.events('app', 'web')).to.have.length(1);
  });

  it('retry_attempts bounds the retries; a retriable failure then ends errored', async () => {
    peer.fault = () => awsError('ThrottlingException');
    const ds = await runSink(config({}, { retry_attempts: 2 }), of([log('a', now)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['errored']);
    expect(puts()).to.have.length(3);
  });

  it('a request cut into calls: when a later call fails, only it is sent again (no duplicates)', async () => {
    let failed = false;
    peer.fault = (req) => {
      if (failed || operation(req.headers) !== 'PutLogEvents') return undefined;
      const body = JSON.parse(req.raw.toString()) as { logEvents: { message: string }[] };
      if (!body.logEvents.some((e) => e.message.includes('late'))) return undefined;
      failed = true;
      return 500;
    };
    const ds = await runSink(config(), of([log('early', now - 30 * HOUR), log('late', now)]));
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([
      ['delivered', 1],
      ['delivered', 1],
    ]);
    expect(puts()).to.have.length(3);
    expect(peer.events('app', 'web').map((e) => JSON.parse(e.message).message)).to.deep.equal(['early', 'late']);
  });

  it('throttling, 5xx, resets and stalls in rotation with concurrency 4: every event stored, none lost', async () => {
    const rotation = [awsError('ThrottlingException'), 500, 'reset', 'stall', awsError('ServiceUnavailableException', 500)] as const;
    let served = 0;
    peer.fault = (req) => {
      if (operation(req.headers) !== 'PutLogEvents') return undefined;
      const n = served++;
      return n < 25 ? rotation[n % rotation.length] : undefined;
    };
    const batches = Array.from({ length: 20 }, (_, b) => Array.from({ length: 10 }, (_, i) => log(`e${b * 10 + i}`, now - 1000 + i, { host: `h${b % 3}` })));
    const ds = await runSink(config({ stream_name: '{{ host }}', batch: { max_events: 10 }, request: { concurrency: 4 } }, { timeout_secs: 0.3 }), of(...batches));
    expect(count(ds, 'delivered')).to.equal(200);
    const stored = ['h0', 'h1', 'h2'].flatMap((h) => peer.events('app', h).map((e) => JSON.parse(e.message).message as string));
    expect(new Set(stored).size).to.equal(200);
  });
});
