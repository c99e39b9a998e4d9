import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject, VirtualAction, VirtualTimeScheduler, from, lastValueFrom, toArray } from 'rxjs';
import { buildCloudgPubsubSink, cloudgPubsubHealthcheck } from '../../../../connectors/sinks/cloudg_pubsub/sink.js';
import { SCOPES } from '../../../../connectors/shared/cloudg/auth.js';
import { type EventBatch, logEvent } from '../../../../lib/event.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type GoogleTokenPeer, type TestServiceAccount, generateServiceAccount, startGoogleTokenPeer } from '../../../peers/google-token.js';
import { type HttpPeer, json, startHttpPeer } from '../../../peers/http-peer.js';
import { count, fast, pubsubConfig, runSink } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-pubsub-wire-'));
const PUBLISH = '/v1/projects/weir-test/topics/weir-topic:publish';
const events = (n: number) => Array.from({ length: n }, (_, i) => logEvent({ message: `m${i}`, n: i }));

/**
 * A publish endpoint that checks what the emulator does not: the bearer token against the token
 * peer, and answers one message id per message (or what `ids` says).
 */
describe('connectors/sinks/cloudg_pubsub: the request on the wire, credentials, retries', function () {
  this.timeout(30_000);
  let tokens: GoogleTokenPeer;
  let account: TestServiceAccount;
  let keyFile: string;
  let pubsub: HttpPeer;
  let ids: ((n: number) => number) | undefined;
  const publishes = () => pubsub.requests.filter((r) => r.path === PUBLISH);
  before(async () => {
    tokens = await startGoogleTokenPeer();
    account = generateServiceAccount();
    tokens.trust(account);
    keyFile = account.writeKeyFile(tmp, tokens.tokenUri);
    pubsub = await startHttpPeer((req) => {
      const key = req.query.get('key');
      if (key === null) {
        const auth = tokens.check(req.headers.authorization, SCOPES.pubsub);
        if (auth !== 'ok') return json(401, { error: { code: 401, message: `Request had invalid authentication credentials (${auth}).`, status: 'UNAUTHENTICATED' } });
      } else if (key !== 'AIza-test_key') return json(400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } });
      if (req.method === 'GET' && req.path === '/v1/projects/weir-test/topics/weir-topic') return json(200, { name: 'projects/weir-test/topics/weir-topic' });
      if (req.method !== 'POST' || req.path !== PUBLISH) return json(404, { error: { code: 404, message: 'Resource not found', status: 'NOT_FOUND' } });
      if (req.headers['content-type'] !== 'application/json') return json(400, { error: { code: 400, message: 'bad content type' } });
      const body = JSON.parse(req.raw.toString()) as { messages: { data: string }[] };
      const n = ids ? ids(body.messages.length) : body.messages.length;
      return json(200, { messageIds: Array.from({ length: n }, (_, i) => String(i + 1)) });
    });
  });
  after(async () => {
    await pubsub.close();
    await tokens.close();
  });
  beforeEach(() => {
    pubsub.requests.length = 0;
    pubsub.fault = undefined;
    ids = undefined;
  });

  it('credentials_path: Authorization Bearer with the token issued for the pubsub scope; base64 data per message', async () => {
    const cfg = fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: undefined, credentials_path: keyFile }));
    const ds = await runSink(cfg, from([events(3)]));
    expect(count(ds, 'delivered')).to.equal(3);
    const [req] = publishes();
    expect(tokens.check(req!.headers.authorization, SCOPES.pubsub)).to.equal('ok');
    expect(req!.query.has('key')).to.equal(false);
    const body = JSON.parse(req!.raw.toString()) as { messages: { data: string }[] };
    expect(body.messages.map((m) => JSON.parse(Buffer.from(m.data, 'base64').toString()))).to.deep.equal([0, 1, 2].map((n) => ({ message: `m${n}`, n })));
    expect(body.messages[0]).to.have.keys('data');
  });

  it('api_key: the key query parameter and no Authorization header', async () => {
    const ds = await runSink(fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: 'AIza-test_key' })), from([events(2)]));
    expect(count(ds, 'delivered')).to.equal(2);
    const [req] = publishes();
    expect(req!.query.get('key')).to.equal('AIza-test_key');
    expect(req!.headers.authorization).to.equal(undefined);
  });

  it('CLOUDG_APPLICATION_CREDENTIALS and the instance metadata server', async () => {
    const cfg = fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: undefined }));
    expect(count(await runSink(cfg, from([events(1)]), undefined, { CLOUDG_APPLICATION_CREDENTIALS: keyFile }), 'delivered')).to.equal(1);
    expect(tokens.issued.get(publishes()[0]!.headers.authorization!.slice(7))?.via).to.equal('jwt');
    expect(count(await runSink(cfg, from([events(1)]), undefined, { CLOUDG_METADATA_HOST: tokens.metadataHost }), 'delivered')).to.equal(1);
    expect(tokens.issued.get(publishes()[1]!.headers.authorization!.slice(7))?.via).to.equal('metadata');
  });

  it('an expired token is refused (401), dropped, and the request goes again with a fresh one', async () => {
    const cfg = fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: undefined, credentials_path: keyFile }));
    let expired = false;
    pubsub.fault = (req) => {
      // the first publish: its token expires in the service's eyes just as it arrives
      if (!expired && req.path === PUBLISH) {
        expired = true;
        tokens.expire(req.headers.authorization!.slice(7));
      }
      return undefined;
    };
    const ds = await runSink(cfg, from([events(2)]));
    expect(count(ds, 'delivered')).to.equal(2);
    const [first, second] = publishes();
    expect(first!.headers.authorization).to.not.equal(second!.headers.authorization);
    expect(tokens.check(second!.headers.authorization, SCOPES.pubsub)).to.equal('ok');
  });

  it('request.headers go on every publish; healthcheck.enabled = false makes no request', async () => {
    const ds = await runSink(fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: 'AIza-test_key', request: { headers: { 'x-team': 'obs' } } })), from([events(1)]));
    expect(count(ds, 'delivered')).to.equal(1);
    expect(publishes()[0]!.headers['x-team']).to.equal('obs');
    pubsub.requests.length = 0;
    await cloudgPubsubHealthcheck(pubsubConfig(pubsub.url, 'no-topic', { healthcheck: { enabled: false } }), { globals: testSinkContext('x').globals }, {});
    expect(pubsub.requests).to.have.length(0);
  });

  it('a batch waits for batch.timeout_secs (default 1 s) before it is published', async () => {
    const clock = new VirtualTimeScheduler(VirtualAction, 999);
    const input = new Subject<EventBatch>();
    const cfg = fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: 'AIza-test_key' }));
    const done = lastValueFrom(input.pipe(buildCloudgPubsubSink(cfg, testSinkContext('cloudg_pubsub', { scheduler: clock }), {}), toArray()));
    input.next(events(3));
    clock.flush();
    // nothing ran before 999 ms; the batch's flush is the one action left, at 1 s
    expect(clock.actions.map((a) => a.delay)).to.deep.equal([1000]);
    clock.maxFrames = 1000;
    clock.flush();
    input.complete();
    expect(count(await done, 'delivered')).to.equal(3);
    expect(publishes()).to.have.length(1);
  });

  it('429 and 503 are retried, 400 and 403 rejected', async () => {
    pubsub.failNext(429);
    pubsub.failNext(503);
    const ok = await runSink(fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: 'AIza-test_key' })), from([events(2)]));
    expect(count(ok, 'delivered')).to.equal(2);
    expect(publishes()).to.have.length(3);
    for (const status of [400, 403]) {
      pubsub.requests.length = 0;
      pubsub.failNext(status);
      const ctx = testSinkContext('cloudg_pubsub');
      const ds = await runSink(fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: 'AIza-test_key' })), from([events(2)]), ctx);
      expect(count(ds, 'rejected')).to.equal(2);
      expect(publishes()).to.have.length(1);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
    }
  });

  it('an answer with fewer message ids than messages: only the unpublished tail is sent again', async () => {
    let first = true;
    ids = (n) => (first ? ((first = false), n - 2) : n);
    const ds = await runSink(fast(pubsubConfig(pubsub.url, 'weir-topic', { api_key: 'AIza-test_key' })), from([events(5)]));
    expect(count(ds, 'delivered')).to.equal(5);
    const [a, b] = publishes().map((r) => (JSON.parse(r.raw.toString()) as { messages: { data: string }[] }).messages.map((m) => JSON.parse(Buffer.from(m.data, 'base64').toString()).n as number));
    expect(a).to.deep.equal([0, 1, 2, 3, 4]);
    expect(b).to.deep.equal([3, 4]);
  });

  it('health check: 403 is "forbidden"; no credentials names every source tried', async () => {
    const globals = testSinkContext('x').globals;
    pubsub.failNext(403);
    const forbidden = await cloudgPubsubHealthcheck(pubsubConfig(pubsub.url, 'weir-topic', { api_key: 'AIza-test_key' }), { globals }, {}).then(() => undefined, (e: Error) => e);
    expect(forbidden?.message).to.match(/^forbidden: GET /);
    const none = await cloudgPubsubHealthcheck(pubsubConfig(pubsub.url, 'weir-topic', { api_key: undefined }), { globals }, { GCE_METADATA_HOST: '127.0.0.1:1' }).then(() => undefined, (e: Error) => e);
    expect(none?.message).to.include('credentials_path (unset), api_key (unset), CLOUDG_APPLICATION_CREDENTIALS (unset), GOOGLE_APPLICATION_CREDENTIALS (unset)');
    await cloudgPubsubHealthcheck(pubsubConfig(pubsub.url, 'weir-topic', { api_key: undefined, credentials_path: keyFile }), { globals }, {});
  });
});
