/** TLS and proxy of the two HEC sinks (siem_hec_metrics, logsvc_metrics) through real peers: an https collector and tinyproxy. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { of } from 'rxjs';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { type TestProxy, startTinyproxy } from '../../../helpers/tinyproxy.js';
import { counter } from './harness.js';
import * as logsvc from '../../sinks/logsvc_metrics/harness.js';
import * as siem from '../../sinks/siem_hec_metrics/harness.js';

const SUCCESS = { status: 200, body: '{"text":"Success","code":0}' };

/** Both collector sinks send through the shared HEC transport; each gets the same checks. */
const SINKS = [
  { type: 'siem_hec_metrics', run: (url: string, extra: Record<string, unknown>) => siem.runSink(siem.fast(siem.siemConfig(url, extra), { retry_attempts: 0 }), of([counter('a', 1)])) },
  { type: 'logsvc_metrics', run: (url: string, extra: Record<string, unknown>) => logsvc.runSink(logsvc.fast(logsvc.logsvcConfig(url, extra), { retry_attempts: 0 }), of([counter('a', 1)])) },
];

for (const sink of SINKS) {
  describe(`connectors/sinks/${sink.type}: tls and proxy`, function () {
    this.timeout(20_000);
    let certs: TestCerts;
    let https: TestServer;
    let plain: TestServer;
    let proxy: TestProxy;
    before(async () => {
      certs = makeTestCerts();
      https = await startTestServer(() => SUCCESS, { cert: readFileSync(certs.serverCrt), key: readFileSync(certs.serverKey) });
      plain = await startTestServer(() => SUCCESS);
      proxy = await startTinyproxy();
    });
    after(async () => {
      await Promise.all([https.close(), plain.close(), proxy.stop()]);
      certs.remove();
    });
    const once = async (url: string, extra: Record<string, unknown>) => (await sink.run(url, extra))[0]!.status;

    it('tls.ca_file verifies the collector; without it the unknown issuer is refused; verify_certificate = false accepts it', async () => {
      expect(await once(https.url, {})).to.equal('errored');
      expect(await once(https.url, { tls: { ca_file: certs.caCrt } })).to.equal('delivered');
      expect(await once(https.url, { tls: { verify_certificate: false } })).to.equal('delivered');
      expect(https.requests.map((r) => r.url)).to.deep.equal(['/services/collector/event', '/services/collector/event']);
    });

    it('proxy.http carries the requests through a real forward proxy; proxy.enabled = false does not', async () => {
      // tinyproxy logs a tunnel some time after it opened it: count the tunnels to the collector it logged
      const host = new URL(plain.url).host;
      const before = proxy.requestsTo(host);
      expect(await once(plain.url, { proxy: { http: proxy.url } })).to.equal('delivered');
      await proxy.waitForRequestsTo(host, before + 1);
      // proxy.enabled = false: straight to the collector; a proxied request after it marks where the log is
      expect(await once(plain.url, { proxy: { enabled: false, http: proxy.url } })).to.equal('delivered');
      expect(await once(plain.url, { proxy: { http: proxy.url } })).to.equal('delivered');
      await proxy.waitForRequestsTo(host, before + 2);
      expect(proxy.requestsTo(host)).to.equal(before + 2, proxy.connections().join('\n'));
    });
  });
}
