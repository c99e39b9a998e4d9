/**
 * `cloudw_monitor_metrics` under faults: throttling, 5xx,
 * resets and stalls are retried until every datum is stored; a call the service refuses is not.
 */
import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type CloudwatchMetricsPeer, startCloudwatchMetrics } from '../../../peers/cloudwatch-metrics.js';
import { count, counter, cwError, fast, metricsConfig, runSink } from './harness.js';

describe('connectors/sinks/cloudw_monitor_metrics: retries and faults', () => {
  let peer: CloudwatchMetricsPeer;
  before(async () => {
    peer = await startCloudwatchMetrics();
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.datums.length = 0;
    peer.calls.length = 0;
    peer.requests.length = 0;
    peer.fault = undefined;
  });
  const config = (extra: Record<string, unknown> = {}, request = {}) => fast(metricsConfig(peer.url, extra), request);
  const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => counter(`m${from + i}`, 1));

  const faults = {
    'ThrottlingException (code Throttling)': cwError('ThrottlingException', 'Throttling'),
    'InternalServiceFault 500': cwError('InternalServiceFault', 'InternalServiceError', 500),
    'plain 503': 503,
    'connection reset': 'reset',
  } as const;
  for (const [name, fault] of Object.entries(faults)) {
    it(`${name} is retried with the same datums until stored, and counted`, async () => {
      let n = 0;
      peer.fault = () => (n++ < 2 ? fault : undefined);
      const ctx = testSinkContext('cloudw_monitor_metrics');
      const ds = await runSink(config(), of(events(3)), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 3]]);
      expect(peer.requests).to.have.length(3);
      expect(new Set(peer.requests.map((r) => r.raw.toString())).size).to.equal(1);
      expect(peer.datums.map((d) => d.name)).to.deep.equal(['m0', 'm1', 'm2']);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
    });
  }

  it('a stall past request.timeout_secs aborts the call and retries it', async () => {
    let n = 0;
    peer.fault = () => (n++ === 0 ? 'stall' : undefined);
    const ds = await runSink(config({}, { timeout_secs: 0.3 }), of(events(1)));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(peer.requests).to.have.length(2);
    expect(peer.datums).to.have.length(1);
  });

  it('InvalidParameterValue is rejected at once, not retried, and counted', async () => {
    peer.fault = () => cwError('InvalidParameterValueException', 'InvalidParameterValue');
    const ctx = testSinkContext('cloudw_monitor_metrics');
    const ds = await runSink(config(), of(events(2)), ctx);
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['rejected', 2]]);
    expect(peer.requests).to.have.length(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
  });

  it('wrong credentials: the server refuses the signature and the batch is rejected, not retried', async () => {
    const ds = await runSink(config({ auth: { access_key_id: 'AKIDWEIRTEST', secret_access_key: 'wrong' } }), of(events(2)));
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['rejected', 2]]);
    expect(peer.requests).to.have.length(1);
  });

  it('throttling, 5xx, resets and stalls in rotation with concurrency 4: every metric stored, none lost', async () => {
    const rotation = [cwError('ThrottlingException', 'Throttling'), 500, 'reset', 'stall', 503] as const;
    let served = 0;
    peer.fault = () => {
      const n = served++;
      return n < 25 ? rotation[n % rotation.length] : undefined;
    };
    const input = of(...Array.from({ length: 20 }, (_, b) => events(10, b * 10)));
    const ds = await runSink(config({ batch: { max_events: 10 }, request: { concurrency: 4 } }, { timeout_secs: 0.3 }), input);
    expect(count(ds, 'delivered')).to.equal(200);
    expect(new Set(peer.datums.map((d) => d.name)).size).to.equal(200);
  });
});
