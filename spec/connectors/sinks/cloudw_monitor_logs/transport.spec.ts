/** `cloudw_monitor_logs` transport options: `region` scopes the signature, `proxy` carries the calls, `tls` trusts the server, `request.headers` go on PutLogEvents. */
import { expect } from 'chai';
import { type AddressInfo, connect } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { of } from 'rxjs';
import { makeTestCerts } from '../../../helpers/certs.js';
import { startTinyproxy } from '../../../helpers/tinyproxy.js';
import { type CloudwatchLogsPeer, startCloudwatchLogs } from '../../../peers/cloudwatch-logs.js';
import { fast, log, logsConfig, runSink } from './harness.js';

describe('connectors/sinks/cloudw_monitor_logs: region and proxy', function () {
  this.timeout(60_000);
  let peer: CloudwatchLogsPeer;
  before(async () => {
    peer = await startCloudwatchLogs({ region: 'eu-central-1' });
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.groups.clear();
    peer.createStream('app', 'web');
  });

  it('region names the signing scope: the server in eu-central-1 takes eu-central-1 and refuses us-east-1', async () => {
    const ok = await runSink(fast(logsConfig(peer.url, { region: 'eu-central-1' })), of([log('a', Date.now())]));
    expect(ok.map((d) => d.status)).to.deep.equal(['delivered']);
    const refused = await runSink(fast(logsConfig(peer.url, { region: 'us-east-1' })), of([log('b', Date.now())]));
    expect(refused.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(peer.events('app', 'web')).to.have.length(1);
  });

  it('request.headers are added to PutLogEvents only, and signed', async () => {
    peer.groups.clear();
    peer.requests.length = 0;
    const ds = await runSink(fast(logsConfig(peer.url, { region: 'eu-central-1', request: { headers: { 'X-Weir-Test': 'abc' } } })), of([log('h', Date.now())]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    const seen = peer.requests.map((r) => [String(r.headers['x-amz-target']).split('.')[1], r.headers['x-weir-test']]);
    expect(seen).to.deep.equal([
      ['PutLogEvents', 'abc'],
      ['DescribeLogStreams', undefined],
      ['CreateLogGroup', undefined],
      ['CreateLogStream', undefined],
      ['PutLogEvents', 'abc'],
    ]);
    expect(String(peer.requests[0]!.headers.authorization)).to.include('x-weir-test');
  });

  it('proxy.http: the calls go through the proxy', async () => {
    const tiny = await startTinyproxy();
    try {
      const ds = await runSink(fast(logsConfig(peer.url, { region: 'eu-central-1', proxy: { http: tiny.url } })), of([log('proxied', Date.now())]));
      expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
      // tinyproxy logs a tunnel some time after it opened it
      await tiny.waitForRequestsTo(new URL(peer.url).host, 1);
      expect(peer.events('app', 'web').map((e) => e.message)).to.deep.equal(['{"message":"proxied"}']);
    } finally {
      await tiny.stop();
    }
  });

  it('tls.ca_file: an https endpoint whose certificate the CA signed is trusted; without it the call fails', async () => {
    const certs = makeTestCerts();
    // TLS in front of the plain server: the SDK speaks https to it, the server sees the same request
    const front = createTlsServer({ key: certs.read(certs.serverKey), cert: certs.read(certs.serverCrt) }, (socket) => {
      const back = connect(peer.port, '127.0.0.1');
      socket.pipe(back).pipe(socket);
      socket.on('error', () => back.destroy());
      back.on('error', () => socket.destroy());
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    const endpoint = `https://localhost:${(front.address() as AddressInfo).port}`;
    try {
      const ok = await runSink(fast(logsConfig(endpoint, { region: 'eu-central-1', tls: { ca_file: certs.caCrt } })), of([log('over tls', Date.now())]));
      expect(ok.map((d) => d.status)).to.deep.equal(['delivered']);
      expect(peer.events('app', 'web').map((e) => e.message)).to.deep.equal(['{"message":"over tls"}']);
      const untrusted = await runSink(fast(logsConfig(endpoint, { region: 'eu-central-1' }), { retry_attempts: 0 }), of([log('refused', Date.now())]));
      expect(untrusted.map((d) => d.status)).to.not.deep.equal(['delivered']);
      expect(peer.events('app', 'web')).to.have.length(1);
    } finally {
      front.close();
      certs.remove();
    }
  });
});
