/** `proxy` on the cloudg sinks: publish calls, object uploads and the token exchange go through a real forward proxy (tinyproxy). */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { from, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudgObjectStorageConfig } from '../../../../connectors/sinks/cloudg_object_storage/config.js';
import { buildCloudgObjectStorageSink } from '../../../../connectors/sinks/cloudg_object_storage/sink.js';
import { logEvent } from '../../../../lib/event.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { type TestProxy, startTinyproxy } from '../../../helpers/tinyproxy.js';
import { type GcsPeer, startGcs } from '../../../peers/gcs.js';
import { type GoogleTokenPeer, generateServiceAccount, startGoogleTokenPeer } from '../../../peers/google-token.js';
import { count, fast, pubsubConfig, runSink } from './harness.js';

describe('connectors/sinks/cloudg_*: proxy', function () {
  this.timeout(60_000);
  let tiny: TestProxy;
  let dir: string;
  before(async () => {
    tiny = await startTinyproxy();
    dir = mkdtempSync(join(tmpdir(), 'weir-cloudg-proxy-'));
  });
  after(async () => {
    await tiny.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cloudg_pubsub: proxy.http carries the publish call; proxy.enabled = false goes direct', async () => {
    const server: TestServer = await startTestServer(() => ({ status: 200, body: '{"messageIds":["1"]}' }));
    try {
      // tinyproxy logs a tunnel some time after it opened it: count the tunnels to the server it logged
      const host = new URL(server.url).host;
      const ds = await runSink(fast(pubsubConfig(server.url, 'weir-topic', { proxy: { http: tiny.url } })), from([[logEvent({ message: 'via proxy' })]]));
      expect(count(ds, 'delivered')).to.equal(1);
      await tiny.waitForRequestsTo(host, 1);
      // proxy.enabled = false: straight to the server; a proxied call after it marks where the log is
      const direct = await runSink(fast(pubsubConfig(server.url, 'weir-topic', { proxy: { enabled: false, http: tiny.url } })), from([[logEvent({ message: 'direct' })]]));
      expect(count(direct, 'delivered')).to.equal(1);
      const marker = await runSink(fast(pubsubConfig(server.url, 'weir-topic', { proxy: { http: tiny.url } })), from([[logEvent({ message: 'marker' })]]));
      expect(count(marker, 'delivered')).to.equal(1);
      await tiny.waitForRequestsTo(host, 2);
      expect(tiny.requestsTo(host)).to.equal(2, tiny.connections().join('\n'));
      expect(server.requests).to.have.length(3);
    } finally {
      await server.close();
    }
  });

  it('cloudg_object_storage: the token exchange and the upload both go through proxy.http', async () => {
    const tokens: GoogleTokenPeer = await startGoogleTokenPeer();
    const gcs: GcsPeer = await startGcs(tokens);
    try {
      const account = generateServiceAccount();
      tokens.trust(account);
      const keyFile = account.writeKeyFile(dir, tokens.tokenUri);
      const c = v.parse(CloudgObjectStorageConfig, { type: 'cloudg_object_storage', inputs: ['in'], bucket: 'weir-bucket', endpoint: gcs.url, credentials_path: keyFile, proxy: { http: tiny.url } });
      const before = tiny.connections().length;
      const ds = await lastValueFrom(from([[logEvent({ message: 'object via proxy' })]]).pipe(buildCloudgObjectStorageSink(c, testSinkContext('cloudg_object_storage'), {}), toArray()));
      expect(count(ds, 'delivered')).to.equal(1);
      const through = () => tiny.connections().slice(before).join('\n');
      await until(() => through().includes(new URL(tokens.tokenUri).host) && through().includes(gcs.url.replace('http://', '')), 5_000, 'the token exchange and the upload in the tinyproxy log');
      expect([...gcs.objects.values()]).to.have.length(1);
    } finally {
      await gcs.close();
      await tokens.close();
    }
  });
});
