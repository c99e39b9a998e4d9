import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { of } from 'rxjs';
import { makeTestCerts, type TestCerts } from '../../../helpers/certs.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type TestProxy, startTinyproxy } from '../../../helpers/tinyproxy.js';
import { fast, httpConfig, makeEvents, runSink } from './harness.js';

describe('connectors/sinks/http: proxy through a real forward proxy (tinyproxy)', function () {
  let proxy: TestProxy;
  let server: TestServer;
  // the destination of the proxied request that marks how far tinyproxy's log has come
  let marker: TestServer;
  before(async () => {
    proxy = await startTinyproxy();
    server = await startTestServer();
    marker = await startTestServer();
  });
  after(async () => {
    await Promise.all([server.close(), marker.close()]);
    await proxy.stop();
  });

  /** Tunnels to the server under either of its names that tinyproxy logged. */
  const tunnels = () => proxy.requestsTo(new URL(server.url).host) + proxy.requestsTo(new URL(server.url.replace('127.0.0.1', 'localhost')).host);

  /**
   * Sends one event and reports whether tinyproxy logged a tunnel for it. tinyproxy logs a request some
   * time after it served it: a proxied request after this one marks where the log is, and it is waited for.
   */
  async function viaProxy(uri: string, extra: Record<string, unknown>, globals?: Record<string, unknown>): Promise<{ status: string; proxied: boolean }> {
    const before = tunnels();
    const markerHost = new URL(marker.url).host;
    const marks = proxy.requestsTo(markerHost);
    const n = server.requests.length;
    const ctx = testSinkContext('http', globals ? { globals: { proxy: globals as never } } : {});
    const ds = await runSink(fast(httpConfig(uri, extra), { retry_attempts: 0 }), of(makeEvents(1)), ctx);
    if (ds[0]!.status === 'delivered') expect(server.requests.length).to.equal(n + 1);
    const mark = await runSink(fast(httpConfig(marker.url, { proxy: { enabled: true, http: proxy.url, no_proxy: [] } }), { retry_attempts: 0 }), of(makeEvents(1)));
    expect(mark[0]!.status).to.equal('delivered');
    await proxy.waitForRequestsTo(markerHost, marks + 1);
    return { status: ds[0]!.status, proxied: tunnels() > before };
  }

  it('proxy.http carries the request through the proxy', async () => {
    expect(await viaProxy(server.url, { proxy: { http: proxy.url } })).to.deep.equal({ status: 'delivered', proxied: true });
  });

  it('does not proxy a no_proxy host: CIDR, *, leading-dot domain; a wildcard domain matches subdomains only', async () => {
    expect(await viaProxy(server.url, { proxy: { http: proxy.url, no_proxy: ['127.0.0.0/8'] } })).to.deep.equal({ status: 'delivered', proxied: false });
    expect(await viaProxy(server.url, { proxy: { http: proxy.url, no_proxy: ['*'] } })).to.deep.equal({ status: 'delivered', proxied: false });
    const local = server.url.replace('127.0.0.1', 'localhost');
    expect(await viaProxy(local, { proxy: { http: proxy.url, no_proxy: ['.localhost'] } })).to.deep.equal({ status: 'delivered', proxied: false });
    expect(await viaProxy(local, { proxy: { http: proxy.url, no_proxy: ['*.localhost'] } })).to.deep.equal({ status: 'delivered', proxied: true });
  });

  it('uses the global proxy, and proxy.enabled = false bypasses it', async () => {
    expect(await viaProxy(server.url, {}, { enabled: true, http: proxy.url, no_proxy: [] })).to.deep.equal({ status: 'delivered', proxied: true });
    expect(await viaProxy(server.url, { proxy: { enabled: false } }, { enabled: true, http: proxy.url, no_proxy: [] })).to.deep.equal({
      status: 'delivered',
      proxied: false,
    });
  });

  it('uses http_proxy from the environment', async () => {
    const saved = { lower: process.env.http_proxy, upper: process.env.HTTP_PROXY };
    process.env.http_proxy = proxy.url;
    process.env.HTTP_PROXY = 'http://127.0.0.1:9'; // lowercase wins
    try {
      expect(await viaProxy(server.url, {})).to.deep.equal({ status: 'delivered', proxied: true });
    } finally {
      for (const [k, val] of [['http_proxy', saved.lower], ['HTTP_PROXY', saved.upper]] as const) {
        if (val === undefined) delete process.env[k];
        else process.env[k] = val;
      }
    }
  });

  it('tunnels HTTPS with proxy.https and still verifies the destination', async () => {
    let certs: TestCerts | undefined;
    let secure: TestServer | undefined;
    try {
      certs = makeTestCerts();
      secure = await startTestServer(() => 200, { cert: readFileSync(certs.serverCrt), key: readFileSync(certs.serverKey) });
      const host = new URL(secure.url).host;
      const before = proxy.requestsTo(host);
      const ds = await runSink(fast(httpConfig(secure.url, { proxy: { https: proxy.url }, tls: { ca_file: certs.caCrt } })), of(makeEvents(1)));
      expect(ds[0]!.status).to.equal('delivered');
      await proxy.waitForRequestsTo(host, before + 1);
    } finally {
      await secure?.close();
      certs?.remove();
    }
  });

  it('fails (errored) when the configured proxy is down', async () => {
    const ds = await runSink(fast(httpConfig(server.url, { proxy: { http: 'http://127.0.0.1:9' } }), { retry_attempts: 0 }), of(makeEvents(1)));
    expect(ds[0]!.status).to.equal('errored');
  });
});
