import { DescribeStreamSummaryCommand, KinesisClient, ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { expect } from 'chai';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { cloudwClientConfig, cloudwRegion } from '../../../../connectors/shared/cloudw/client.js';
import { CredentialsNotFoundError } from '../../../../connectors/shared/cloudw/credentials.js';
import { cloudwHealthcheck } from '../../../../connectors/shared/cloudw/healthcheck.js';
import { type CloudwConnection, cloudwConnectionEntries, requireRegionOrEndpoint } from '../../../../connectors/shared/cloudw/options.js';
import { classifyCloudwError, isRetriableCloudwError } from '../../../../connectors/shared/cloudw/retry.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { freePort } from '../../../helpers/free-port.js';
import { type TestProxy, startTinyproxy } from '../../../helpers/tinyproxy.js';
import { type HttpPeer, type PeerRequest, json, startHttpPeer } from '../../../peers/http-peer.js';
import { verifySigV4 } from '../../../peers/sigv4.js';

const schema = v.pipe(v.strictObject({ ...cloudwConnectionEntries() }), requireRegionOrEndpoint());
const conn = (o: Record<string, unknown>): CloudwConnection => v.parse(schema, o);
const globals = { globals: { proxy: {} } } as never;
const KEY = { accessKeyId: 'AKSIGNED', secretAccessKey: 'right-secret' };

/** A Kinesis JSON 1.1 answer for ListStreams, behind a SigV4 check. */
function kinesisLike(region: string | undefined) {
  return (req: PeerRequest) => {
    const sig = verifySigV4({ method: req.method, url: req.path, headers: req.headers, body: req.raw }, { service: 'kinesis', region, keys: [KEY] });
    if (!sig.ok) return json(sig.status, { __type: sig.code, message: sig.message }, { 'content-type': 'application/x-amz-json-1.1' });
    if (req.headers['x-amz-target'] !== 'Kinesis_20131202.ListStreams') return json(400, { __type: 'UnknownOperationException' });
    return json(200, { StreamNames: ['s1'], HasMoreStreams: false }, { 'content-type': 'application/x-amz-json-1.1' });
  };
}

describe('cloudw client config', () => {
  let peer: HttpPeer;
  const env = (extra: Record<string, string> = {}) => ({ HOME: '/nonexistent', CLOUDW_EC2_METADATA_DISABLED: 'true', ...extra });
  before(async () => {
    peer = await startHttpPeer(kinesisLike('eu-central-1'));
  });
  after(() => peer.close());

  it('signs with SigV4 for the region and the chain credentials; the peer verifies the signature', async () => {
    const client = new KinesisClient(cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: peer.url, auth: { access_key_id: KEY.accessKeyId, secret_access_key: KEY.secretAccessKey } }), globals, env()));
    const out = await client.send(new ListStreamsCommand({}));
    expect(out.StreamNames).to.deep.equal(['s1']);
    client.destroy();
  });

  it('wrong credentials are refused by the peer, and that is not retried', async () => {
    const client = new KinesisClient(cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: peer.url }), globals, env({ CLOUDW_ACCESS_KEY_ID: KEY.accessKeyId, CLOUDW_SECRET_ACCESS_KEY: 'wrong' })));
    const n = peer.requests.length;
    const err = await client.send(new ListStreamsCommand({})).catch((e: unknown) => e);
    expect((err as Error).name).to.equal('InvalidSignatureException');
    expect(peer.requests.length - n).to.equal(1, 'maxAttempts 1: the SDK does not retry');
    expect(isRetriableCloudwError(err)).to.equal(false);
    const unknown = new KinesisClient(cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: peer.url }), globals, env({ CLOUDW_ACCESS_KEY_ID: 'AKOTHER', CLOUDW_SECRET_ACCESS_KEY: 'x' })));
    expect(((await unknown.send(new ListStreamsCommand({})).catch((e: unknown) => e)) as Error).name).to.equal('UnrecognizedClientException');
    client.destroy();
    unknown.destroy();
  });

  it('signs for us-east-1 when only endpoint is set, and for auth.region or CLOUDW_DEFAULT_REGION otherwise', async () => {
    expect(cloudwRegion(conn({ endpoint: peer.url }), {})).to.equal('us-east-1');
    expect(cloudwRegion(conn({ endpoint: peer.url, auth: { region: 'ap-south-1' } }), {})).to.equal('ap-south-1');
    expect(cloudwRegion(conn({ endpoint: peer.url }), { CLOUDW_DEFAULT_REGION: 'sa-east-1', AWS_REGION: 'us-west-2' })).to.equal('sa-east-1');
    expect(cloudwRegion(conn({ region: 'eu-west-3', endpoint: peer.url }), { CLOUDW_DEFAULT_REGION: 'sa-east-1' })).to.equal('eu-west-3');
    const anyRegion = await startHttpPeer(kinesisLike('us-east-1'));
    const client = new KinesisClient(cloudwClientConfig(conn({ endpoint: anyRegion.url, auth: { access_key_id: KEY.accessKeyId, secret_access_key: KEY.secretAccessKey } }), globals, env()));
    expect((await client.send(new ListStreamsCommand({}))).StreamNames).to.deep.equal(['s1']);
    client.destroy();
    await anyRegion.close();
  });

  it('validation: region is required when endpoint is not set, endpoint must be http(s)', () => {
    const r = v.safeParse(schema, {});
    expect(r.success).to.equal(false);
    expect(v.flatten(r.issues as [v.BaseIssue<unknown>]).nested?.region?.[0]).to.contain('region is required');
    const e = v.safeParse(schema, { endpoint: 'ftp://x' });
    expect(v.flatten(e.issues as [v.BaseIssue<unknown>]).nested?.endpoint?.[0]).to.contain('http');
  });

  describe('TLS and proxy', () => {
    let certs: TestCerts;
    let proxy: TestProxy;
    let httpsUrl: string;
    let closeHttps: () => void;
    before(async function () {
      this.timeout(60_000);
      certs = makeTestCerts();
      proxy = await startTinyproxy();
      const handler = kinesisLike('eu-central-1');
      const server = createHttpsServer({ cert: certs.read(certs.serverCrt), key: certs.read(certs.serverKey) }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const r = handler({ method: req.method ?? '', path: req.url ?? '/', query: new URLSearchParams(), headers: req.headers, raw: Buffer.concat(chunks) });
          res.writeHead(r.status, r.headers).end(r.body);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      httpsUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      closeHttps = () => server.close();
    });
    after(async () => {
      closeHttps();
      await proxy.stop();
      certs.dir && (await import('node:fs')).rmSync(certs.dir, { recursive: true, force: true });
    });

    const keys = { access_key_id: KEY.accessKeyId, secret_access_key: KEY.secretAccessKey };

    it('trusts tls.ca_file, and refuses the server without it', async () => {
      const good = new KinesisClient(cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: httpsUrl, auth: keys, tls: { ca_file: certs.caCrt } }), globals, env()));
      expect((await good.send(new ListStreamsCommand({}))).StreamNames).to.deep.equal(['s1']);
      const bad = new KinesisClient(cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: httpsUrl, auth: keys }), globals, env()));
      const err = await bad.send(new ListStreamsCommand({})).catch((e: unknown) => e);
      expect(String((err as Error).message)).to.match(/certificate/i);
      expect(classifyCloudwError(err).status).to.equal(undefined);
      good.destroy();
      bad.destroy();
    });

    it('tunnels through proxy.https and proxy.http, and not for no_proxy hosts', async () => {
      // tinyproxy logs a tunnel some time after it opened it: count the tunnels to each server it logged
      const [httpsHost, plainHost] = [new URL(httpsUrl).host, new URL(peer.url).host];
      const [https0, plain0] = [proxy.requestsTo(httpsHost), proxy.requestsTo(plainHost)];
      const viaHttps = new KinesisClient(
        cloudwClientConfig({ ...conn({ region: 'eu-central-1', endpoint: httpsUrl, auth: keys, tls: { ca_file: certs.caCrt } }), proxy: { enabled: true, https: proxy.url, no_proxy: [] } }, globals, env()),
      );
      expect((await viaHttps.send(new ListStreamsCommand({}))).StreamNames).to.deep.equal(['s1']);
      const plainVia = (no_proxy: string[]) => new KinesisClient(cloudwClientConfig({ ...conn({ region: 'eu-central-1', endpoint: peer.url, auth: keys }), proxy: { enabled: true, http: proxy.url, no_proxy } }, globals, env()));
      const viaHttp = plainVia([]);
      expect((await viaHttp.send(new ListStreamsCommand({}))).StreamNames).to.deep.equal(['s1']);
      await proxy.waitForRequestsTo(httpsHost, https0 + 1);
      await proxy.waitForRequestsTo(plainHost, plain0 + 1);
      // no_proxy: straight to the server; a proxied call on a new connection after it marks where the log is
      const bypass = plainVia(['127.0.0.1']);
      await bypass.send(new ListStreamsCommand({}));
      const marker = plainVia([]);
      await marker.send(new ListStreamsCommand({}));
      await proxy.waitForRequestsTo(plainHost, plain0 + 2);
      expect(proxy.requestsTo(plainHost)).to.equal(plain0 + 2, proxy.connections().join('\n'));
      for (const c of [viaHttps, viaHttp, bypass, marker]) c.destroy();
    });

    it('takes HTTPS_PROXY from the environment unless proxy.enabled is false', async () => {
      const host = new URL(httpsUrl).host;
      const before = proxy.requestsTo(host);
      const fromEnv = () => new KinesisClient(cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: httpsUrl, auth: keys, tls: { ca_file: certs.caCrt } }), globals, env({ HTTPS_PROXY: proxy.url })));
      const c = fromEnv();
      await c.send(new ListStreamsCommand({}));
      await proxy.waitForRequestsTo(host, before + 1);
      // proxy.enabled = false: straight to the server; a proxied call on a new connection after it marks where the log is
      const off = new KinesisClient(
        cloudwClientConfig({ ...conn({ region: 'eu-central-1', endpoint: httpsUrl, auth: keys, tls: { ca_file: certs.caCrt } }), proxy: { enabled: false, no_proxy: [] } }, globals, env({ HTTPS_PROXY: proxy.url })),
      );
      await off.send(new ListStreamsCommand({}));
      const marker = fromEnv();
      await marker.send(new ListStreamsCommand({}));
      await proxy.waitForRequestsTo(host, before + 2);
      expect(proxy.requestsTo(host)).to.equal(before + 2, proxy.connections().join('\n'));
      for (const client of [c, off, marker]) client.destroy();
    });
  });

  describe('health check helper', () => {
    it('fails with "no credentials; tried: …" before any request', async () => {
      const cfg = cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: peer.url }), globals, env());
      const n = peer.requests.length;
      const err = await cloudwHealthcheck(cfg.credentials, async () => {}, 1000).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CredentialsNotFoundError);
      expect((err as Error).message).to.match(/^no credentials; tried: .*CLOUDW_ACCESS_KEY_ID.*instance metadata/);
      expect(peer.requests.length).to.equal(n);
    });

    it('runs the probe with the credentials, and times out a stalled one', async () => {
      const cfg = cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: peer.url, auth: { access_key_id: KEY.accessKeyId, secret_access_key: KEY.secretAccessKey } }), globals, env());
      const client = new KinesisClient(cfg);
      await cloudwHealthcheck(cfg.credentials, async (signal) => void (await client.send(new ListStreamsCommand({}), { abortSignal: signal })), 5000);
      peer.fault = () => 'stall';
      const err = await cloudwHealthcheck(cfg.credentials, async (signal) => void (await client.send(new DescribeStreamSummaryCommand({ StreamName: 'x' }), { abortSignal: signal })), 200).catch((e: unknown) => e);
      peer.fault = undefined;
      expect((err as Error).message).to.contain('timed out after 200 ms');
      client.destroy();
    });
  });
});

describe('cloudw retry classification', () => {
  const svc = (name: string, status: number, headers: Record<string, string> = {}, message = '') => Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status }, $response: { statusCode: status, headers } });
  it('retries 5xx, 429, throttling codes, x-amz-retry-after and the RequestTimeout/RequestExpired/ThrottlingException texts', () => {
    for (const e of [
      svc('InternalFailure', 500),
      svc('ServiceUnavailable', 503),
      svc('Whatever', 429),
      svc('ProvisionedThroughputExceededException', 400),
      svc('ThrottlingException', 400),
      svc('RequestLimitExceeded', 400),
      svc('SlowDown', 503),
      svc('AnyError', 400, { 'x-amz-retry-after': '1000' }),
      svc('Other', 400, {}, 'Rate exceeded: ThrottlingException'),
      svc('RequestExpired', 400),
    ]) expect(isRetriableCloudwError(e), e.name).to.equal(true);
  });
  it('retries errors without an answer (connection refused, reset, timeouts, unknown shapes)', () => {
    expect(isRetriableCloudwError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).to.equal(true);
    expect(isRetriableCloudwError(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))).to.equal(true);
    expect(isRetriableCloudwError('weird')).to.equal(true);
  });
  it('rejects other 4xx', () => {
    for (const e of [svc('ValidationException', 400), svc('ResourceNotFoundException', 400), svc('AccessDeniedException', 403), svc('InvalidSignatureException', 400)]) expect(isRetriableCloudwError(e), e.name).to.equal(false);
  });
  it('reads a real connection failure as retriable', async () => {
    const port = await freePort();
    const client = new KinesisClient(cloudwClientConfig(conn({ region: 'eu-central-1', endpoint: `http://127.0.0.1:${port}`, auth: { access_key_id: 'a', secret_access_key: 'b' } }), globals, {}));
    const err = await client.send(new ListStreamsCommand({})).catch((e: unknown) => e);
    expect(classifyCloudwError(err)).to.include({ retriable: true, status: undefined });
    client.destroy();
  });
});
