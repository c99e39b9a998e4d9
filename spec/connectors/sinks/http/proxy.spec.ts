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
  before(async () => {
    proxy = await startTinyproxy();
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
    await proxy.stop();
  });

  /** Sends one event and reports whether tinyproxy saw a new connection for it. */
  async function viaProxy(uri: string, extra: Record<string, unknown>, globals?: Record<string, unknown>): Promise<{ status: string; proxied: boolean }> {
    const before = proxy.connections().length;
    const n = server.requests.length;
    const ctx = testSinkContext('http', globals ? { globals: { proxy: globals as never } } : {});
    const ds = await runSink(fast(httpConfig(uri, extra), { retry_attempts: 0 }), of(makeEvents(1)), ctx);
    if (ds[0]!.status === 'delivered') expect(server.requests.length).to.equal(n + 1);
    await new Promise((r) => setTimeout(r, 30)); // tinyproxy writes its log line asynchronously
    return { status: ds[0]!.status, proxied: proxy.connections().length > before };
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
      const before = proxy.connections().length;
      const ds = await runSink(fast(httpConfig(secure.url, { proxy: { https: proxy.url }, tls: { ca_file: certs.caCrt } })), of(makeEvents(1)));
      expect(ds[0]!.status).to.equal('delivered');
      await new Promise((r) => setTimeout(r, 30));
      expect(proxy.connections().length).to.be.greaterThan(before);
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
