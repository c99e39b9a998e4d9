import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialsError, SCOPES, createCloudgAuth } from '../../../../connectors/shared/cloudg/auth.js';
import { isRetriableCloudgError } from '../../../../connectors/shared/cloudg/service.js';
import { makeTestCerts } from '../../../helpers/certs.js';
import { freePort } from '../../../helpers/free-port.js';
import { type GoogleTokenPeer, type TestServiceAccount, generateServiceAccount, startGoogleTokenPeer } from '../../../peers/google-token.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-cloudg-auth-'));
const bearer = (h: Record<string, string>) => /^Bearer (\S+)$/.exec(h.authorization ?? '')?.[1];

describe('connectors/shared/cloudg: credentials in the spec order, tokens from google-auth-library', function () {
  this.timeout(30_000);
  let peer: GoogleTokenPeer;
  let account: TestServiceAccount;
  let keyFile: string;
  before(async () => {
    peer = await startGoogleTokenPeer();
    account = generateServiceAccount();
    peer.trust(account);
    keyFile = account.writeKeyFile(tmp, peer.tokenUri);
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.expiresIn = 3600;
  });

  it('credentials_path: the JWT goes to the key file token_uri, signed with its key, aud = token_uri, with the sink scope', async () => {
    const before = peer.assertions.length;
    const auth = createCloudgAuth({ credentials_path: keyFile }, SCOPES.storage, {});
    expect(auth.source).to.equal('credentials_path');
    const token = bearer(await auth.headers());
    expect(peer.check(`Bearer ${token}`, SCOPES.storage)).to.equal('ok');
    const claims = peer.assertions[before]!;
    expect(claims).to.include({ iss: account.email, aud: peer.tokenUri, scope: SCOPES.storage });
    expect(auth.url('http://h/x?a=1')).to.equal('http://h/x?a=1');
  });

  it('a key the endpoint does not trust is refused and the check names the file', async () => {
    const stranger = generateServiceAccount('stranger@weir-test.iam.gserviceaccount.com');
    const bad = stranger.writeKeyFile(tmp, peer.tokenUri, 'stranger.json');
    const auth = createCloudgAuth({ credentials_path: bad }, SCOPES.pubsub, {});
    const err = await auth.check().then(() => undefined, (e: Error) => e);
    expect(err?.message, err?.message).to.include(`credentials_path ${bad}`).and.include('unknown issuer');
    // the trusted email with another key: the signature check refuses it
    const forgedFile = generateServiceAccount(account.email).writeKeyFile(tmp, peer.tokenUri, 'forged.json');
    const err2 = await createCloudgAuth({ credentials_path: forgedFile }, SCOPES.pubsub, {}).check().then(() => undefined, (e: Error) => e);
    expect(err2?.message).to.include('Invalid JWT Signature');
  });

  it('a key refused for good (invalid_grant) is a permanent failure, not retried; a token endpoint down or answering 5xx is retried', async () => {
    const stranger = generateServiceAccount('refused@weir-test.iam.gserviceaccount.com');
    const refused = await createCloudgAuth({ credentials_path: stranger.writeKeyFile(tmp, peer.tokenUri, 'refused.json') }, SCOPES.pubsub, {})
      .headers()
      .then(() => undefined, (e: unknown) => e);
    expect(refused).to.be.instanceOf(CredentialsError);
    expect((refused as CredentialsError).permanent).to.equal(true);
    expect(isRetriableCloudgError(refused)).to.equal(false);
    // the trusted key, but the endpoint fails for a moment: worth another attempt
    peer.http.fault = () => 503;
    const busy = await createCloudgAuth({ credentials_path: keyFile }, SCOPES.pubsub, {})
      .check()
      .then(() => undefined, (e: unknown) => e)
      .finally(() => (peer.http.fault = undefined));
    expect(busy).to.be.instanceOf(CredentialsError);
    expect((busy as CredentialsError).permanent).to.equal(false);
    expect(isRetriableCloudgError(busy)).to.equal(true);
    const closed = await freePort();
    const down = await createCloudgAuth({ credentials_path: account.writeKeyFile(tmp, `http://127.0.0.1:${closed}/token`, 'down.json') }, SCOPES.pubsub, {})
      .check()
      .then(() => undefined, (e: unknown) => e);
    expect((down as CredentialsError).permanent).to.equal(false);
    expect(isRetriableCloudgError(down)).to.equal(true);
  });

  it('an unreadable or foreign key file fails the check, naming it', async () => {
    const missing = await createCloudgAuth({ credentials_path: join(tmp, 'missing.json') }, SCOPES.pubsub, {}).check().then(() => undefined, (e: Error) => e);
    expect(missing?.message).to.match(/cannot read credentials file .*missing\.json/);
    const user = join(tmp, 'user.json');
    writeFileSync(user, JSON.stringify({ type: 'authorized_user', client_id: 'x' }));
    const foreign = await createCloudgAuth({ credentials_path: user }, SCOPES.pubsub, {}).check().then(() => undefined, (e: Error) => e);
    expect(foreign?.message).to.include('only "service_account"');
  });

  it('api_key after credentials_path: sent as the key query parameter, no Authorization header', async () => {
    const auth = createCloudgAuth({ api_key: 'AIza-Key_1' }, SCOPES.pubsub, { CLOUDG_APPLICATION_CREDENTIALS: keyFile });
    expect(auth.source).to.equal('api_key');
    expect(auth.url('https://pubsub.example/v1/projects/p/topics/t:publish?x=1')).to.equal('https://pubsub.example/v1/projects/p/topics/t:publish?key=AIza-Key_1');
    expect(await auth.headers()).to.deep.equal({});
    expect(createCloudgAuth({ api_key: 'k', credentials_path: keyFile }, SCOPES.pubsub, {}).source).to.equal('credentials_path');
  });

  it('CLOUDG_APPLICATION_CREDENTIALS, then GOOGLE_APPLICATION_CREDENTIALS', async () => {
    const other = generateServiceAccount('other@weir-test.iam.gserviceaccount.com');
    peer.trust(other);
    const otherFile = other.writeKeyFile(tmp, peer.tokenUri, 'other.json');
    const a = createCloudgAuth({}, SCOPES.pubsub, { CLOUDG_APPLICATION_CREDENTIALS: keyFile, GOOGLE_APPLICATION_CREDENTIALS: otherFile });
    expect(a.source).to.equal('CLOUDG_APPLICATION_CREDENTIALS');
    await a.check();
    expect(peer.assertions.at(-1)).to.include({ iss: account.email });
    const b = createCloudgAuth({}, SCOPES.pubsub, { GOOGLE_APPLICATION_CREDENTIALS: otherFile });
    expect(b.source).to.equal('GOOGLE_APPLICATION_CREDENTIALS');
    expect(peer.check(`Bearer ${bearer(await b.headers())}`, SCOPES.pubsub)).to.equal('ok');
    expect(peer.assertions.at(-1)).to.include({ iss: other.email });
  });

  it('the instance service account: a token from the metadata server at CLOUDG_METADATA_HOST', async () => {
    const auth = createCloudgAuth({}, SCOPES.pubsub, { CLOUDG_METADATA_HOST: peer.metadataHost });
    expect(auth.source).to.equal('metadata');
    const token = bearer(await auth.headers())!;
    expect(peer.issued.get(token)).to.include({ via: 'metadata', scope: SCOPES.pubsub });
    const req = peer.http.requests.filter((r) => r.path.startsWith('/computeMetadata')).at(-1)!;
    expect(req.headers['metadata-flavor']).to.equal('Google');
  });

  it('no credentials anywhere: the check fails naming every source tried', async () => {
    const closed = await freePort();
    const auth = createCloudgAuth({}, SCOPES.pubsub, { GCE_METADATA_HOST: `127.0.0.1:${closed}` });
    const err = await auth.check().then(() => undefined, (e: Error) => e);
    expect(err?.message)
      .to.include('credentials_path (unset)')
      .and.include('api_key (unset)')
      .and.include('CLOUDG_APPLICATION_CREDENTIALS (unset)')
      .and.include('GOOGLE_APPLICATION_CREDENTIALS (unset)')
      .and.include(`metadata server 127.0.0.1:${closed}`);
  });

  it('refreshes a token before it expires, and keeps one that is far from expiry', async () => {
    const auth = createCloudgAuth({ credentials_path: keyFile }, SCOPES.pubsub, {});
    peer.expiresIn = 3600;
    const t1 = bearer(await auth.headers());
    expect(bearer(await auth.headers())).to.equal(t1);
    // a token within the refresh margin (5 minutes) of its expiry is replaced before use
    peer.expiresIn = 60;
    auth.invalidate();
    const t2 = bearer(await auth.headers());
    const t3 = bearer(await auth.headers());
    expect(t2).to.not.equal(t1);
    expect(t3).to.not.equal(t2);
    expect(peer.check(`Bearer ${t3}`, SCOPES.pubsub)).to.equal('ok');
  });

  it('a refused token is dropped: invalidate fetches a new one', async () => {
    const auth = createCloudgAuth({ credentials_path: keyFile }, SCOPES.pubsub, {});
    const t1 = bearer(await auth.headers())!;
    peer.expire(t1);
    expect(peer.check(`Bearer ${t1}`, SCOPES.pubsub)).to.equal('expired');
    auth.invalidate();
    const t2 = bearer(await auth.headers())!;
    expect(t2).to.not.equal(t1);
    expect(peer.check(`Bearer ${t2}`, SCOPES.pubsub)).to.equal('ok');
  });

  it('a token_uri behind TLS with a private CA: the exchange uses the sink tls settings (ca_file)', async () => {
    const certs = makeTestCerts();
    // an HTTPS front of the token endpoint, as a private deployment would run it
    const front = createHttpsServer({ cert: readFileSync(certs.serverCrt), key: readFileSync(certs.serverKey) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void fetch(peer.tokenUri, { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: Buffer.concat(chunks) }).then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        });
      });
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    const frontUri = `https://127.0.0.1:${(front.address() as AddressInfo).port}/token`;
    peer.audience = frontUri;
    try {
      const file = account.writeKeyFile(tmp, frontUri, 'private-ca.json');
      const trusted = createCloudgAuth({ credentials_path: file }, SCOPES.pubsub, {}, { tls: { ca_file: certs.caCrt } });
      expect(peer.check(`Bearer ${bearer(await trusted.headers())}`, SCOPES.pubsub)).to.equal('ok');
      expect(peer.assertions.at(-1)).to.include({ aud: frontUri });
      await trusted.close();
      const untrusted = createCloudgAuth({ credentials_path: file }, SCOPES.pubsub, {});
      const err = await untrusted.check().then(() => undefined, (e: Error) => e);
      expect(err?.message).to.include(`credentials_path ${file}`).and.match(/certificate/i);
      await untrusted.close();
    } finally {
      peer.audience = peer.tokenUri;
      await new Promise((r) => front.close(r));
      certs.remove();
    }
  });
});
