import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { of } from 'rxjs';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { fast, httpConfig, makeEvents, runSink } from './harness.js';
import { buildHttpSink } from '../../../../connectors/sinks/http/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';

describe('connectors/sinks/http: TLS (tls.*)', function () {
  let certs: TestCerts;
  let server: TestServer;
  let otherHost: TestServer;
  let mtls: TestServer;
  before(async () => {
    certs = makeTestCerts();
    const read = (f: string) => readFileSync(f);
    server = await startTestServer(() => 200, { cert: read(certs.serverCrt), key: read(certs.serverKey), });
    otherHost = await startTestServer(() => 200, { cert: read(certs.otherHostCrt), key: read(certs.otherHostKey) });
    mtls = await startTestServer(() => 200, { cert: read(certs.serverCrt), key: read(certs.serverKey), ca: read(certs.caCrt), requestCert: true, rejectUnauthorized: true });
  });
  after(async () => {
    await Promise.all([server.close(), otherHost.close(), mtls.close()]);
    certs.remove();
  });

  const once = (url: string, tls: Record<string, unknown> | undefined) =>
    runSink(fast(httpConfig(url, tls ? { tls } : {}), { retry_attempts: 0 }), of(makeEvents(1))).then((ds) => ds[0]!.status);

  it('verifies the server against ca_file (PEM path, DER path, inline PEM) and refuses an unknown issuer', async () => {
    expect(await once(server.url, undefined)).to.equal('errored');
    expect(await once(server.url, { ca_file: certs.caCrt })).to.equal('delivered');
    expect(await once(server.url, { ca_file: certs.caDer })).to.equal('delivered');
    expect(await once(server.url, { ca_file: readFileSync(certs.caCrt, 'utf8') })).to.equal('delivered');
  });

  it('verify_certificate = false accepts an unknown issuer', async () => {
    expect(await once(server.url, { verify_certificate: false })).to.equal('delivered');
  });

  it('verify_hostname checks the name; false skips only that check', async () => {
    expect(await once(otherHost.url, { ca_file: certs.caCrt })).to.equal('errored');
    expect(await once(otherHost.url, { ca_file: certs.caCrt, verify_hostname: false })).to.equal('delivered');
  });

  it('server_name is the name sent (SNI) and verified', async () => {
    expect(await once(otherHost.url, { ca_file: certs.caCrt, server_name: 'elsewhere.example' })).to.equal('delivered');
    expect(await once(server.url, { ca_file: certs.caCrt, server_name: 'elsewhere.example' })).to.equal('errored');
  });

  it('mTLS: a client identity from the CA is accepted (PEM, encrypted PEM key, DER key, PKCS#12)', async () => {
    const n0 = mtls.requests.length;
    expect(await once(mtls.url, { ca_file: certs.caCrt, crt_file: certs.clientCrt, key_file: certs.clientKey })).to.equal('delivered');
    expect(await once(mtls.url, { ca_file: certs.caCrt, crt_file: certs.clientCrt, key_file: certs.clientKeyEncrypted, key_pass: certs.pass })).to.equal('delivered');
    expect(await once(mtls.url, { ca_file: certs.caCrt, crt_file: certs.clientCrt, key_file: certs.clientKeyDer })).to.equal('delivered');
    expect(await once(mtls.url, { ca_file: certs.caCrt, crt_file: certs.clientP12, key_pass: certs.pass })).to.equal('delivered');
    expect(await once(mtls.url, { ca_file: certs.caCrt, crt_file: readFileSync(certs.clientCrt, 'utf8'), key_file: readFileSync(certs.clientKey, 'utf8') })).to.equal(
      'delivered',
    );
    expect(mtls.requests.slice(n0).map((r) => r.peerCn)).to.deep.equal(Array(5).fill('weir-client'));
  });

  it('mTLS: no identity or one from another CA is refused', async () => {
    expect(await once(mtls.url, { ca_file: certs.caCrt })).to.equal('errored');
    expect(await once(mtls.url, { ca_file: certs.caCrt, crt_file: certs.strangerCrt, key_file: certs.strangerKey })).to.equal('errored');
  });

  it('a wrong key_pass or a missing key fails when the sink is built', () => {
    const ctx = testSinkContext('http');
    const build = (tls: Record<string, unknown>) => () => buildHttpSink(httpConfig(mtls.url, { tls }), ctx);
    expect(build({ crt_file: certs.clientCrt, key_file: certs.clientKeyEncrypted, key_pass: 'wrong' })).to.throw(/key/i);
    expect(build({ crt_file: certs.clientP12, key_pass: 'wrong' })).to.throw(/tls/);
    expect(build({ crt_file: certs.clientCrt })).to.throw(/key_file/);
  });

  it('alpn_protocols are offered in the handshake, in order', async () => {
    // the server prefers x-weir when the client offers it; undici alone offers http/1.1 only
    const s = await startTestServer(() => 200, { cert: readFileSync(certs.serverCrt), key: readFileSync(certs.serverKey), ALPNProtocols: ['x-weir', 'http/1.1'] });
    try {
      expect(await once(s.url, { ca_file: certs.caCrt })).to.equal('delivered');
      expect(await once(s.url, { ca_file: certs.caCrt, alpn_protocols: ['x-weir', 'http/1.1'] })).to.equal('delivered');
      expect(s.requests.map((r) => r.alpn)).to.deep.equal(['http/1.1', 'x-weir']);
    } finally {
      await s.close();
    }
  });
});
