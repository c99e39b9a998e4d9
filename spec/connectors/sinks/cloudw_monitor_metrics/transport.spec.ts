/** `cloudw_monitor_metrics` transport options: `region` scopes the signature, `proxy` carries the calls, `request.headers` are sent. */
import { expect } from 'chai';
import { of } from 'rxjs';
import { startTinyproxy } from '../../../helpers/tinyproxy.js';
import { type CloudwatchMetricsPeer, startCloudwatchMetrics } from '../../../peers/cloudwatch-metrics.js';
import { counter, fast, metricsConfig, runSink } from './harness.js';

describe('connectors/sinks/cloudw_monitor_metrics: region and proxy', function () {
  this.timeout(60_000);
  let peer: CloudwatchMetricsPeer;
  before(async () => {
    peer = await startCloudwatchMetrics({ region: 'eu-central-1' });
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.datums.length = 0;
  });

  it('region names the signing scope: the server in eu-central-1 takes eu-central-1 and refuses us-east-1', async () => {
    const ok = await runSink(fast(metricsConfig(peer.url, { region: 'eu-central-1' })), of([counter('a', 1)]));
    expect(ok.map((d) => d.status)).to.deep.equal(['delivered']);
    const refused = await runSink(fast(metricsConfig(peer.url, { region: 'us-east-1' })), of([counter('b', 1)]));
    expect(refused.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(peer.datums.map((d) => d.name)).to.deep.equal(['a']);
  });

  it('request.headers are sent on every call, and signed', async () => {
    peer.requests.length = 0;
    const ds = await runSink(fast(metricsConfig(peer.url, { region: 'eu-central-1', request: { headers: { 'X-Weir-Test': 'abc' } } })), of([counter('h', 1)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(peer.requests.map((r) => r.headers['x-weir-test'])).to.deep.equal(['abc']);
    expect(String(peer.requests[0]!.headers.authorization)).to.include('x-weir-test');
  });

  it('proxy.http: the calls go through the proxy', async () => {
    const tiny = await startTinyproxy();
    try {
      const ds = await runSink(fast(metricsConfig(peer.url, { region: 'eu-central-1', proxy: { http: tiny.url } })), of([counter('proxied', 1)]));
      expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
      // tinyproxy logs a tunnel some time after it opened it
      await tiny.waitForRequestsTo(new URL(peer.url).host, 1);
      expect(peer.datums.map((d) => d.name)).to.deep.equal(['proxied']);
    } finally {
      await tiny.stop();
    }
  });
});
