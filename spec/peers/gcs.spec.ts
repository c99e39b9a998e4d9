import { expect } from 'chai';
import { createSign } from 'node:crypto';
import { type GcsPeer, startGcs } from './gcs.js';
import { type GoogleTokenPeer, type TestServiceAccount, generateServiceAccount, startGoogleTokenPeer } from './google-token.js';

const SCOPE = 'https://www.googleapis.com/auth/devstorage.read_write';

/** A JWT bearer assertion built by hand as Google's OAuth 2.0 service-account documentation describes. */
function assertion(account: TestServiceAccount, aud: string, scope = SCOPE): string {
  const now = Math.floor(Date.now() / 1000);
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${enc({ alg: 'RS256', typ: 'JWT', kid: account.keyId })}.${enc({ iss: account.email, scope, aud, iat: now, exp: now + 3600 })}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(account.privateKeyPem).toString('base64url')}`;
}

describe('spec/peers/gcs: the strict XML API server, checked with plain signed requests', function () {
  this.timeout(20_000);
  let tokens: GoogleTokenPeer;
  let gcs: GcsPeer;
  let account: TestServiceAccount;
  let token: string;
  before(async () => {
    tokens = await startGoogleTokenPeer();
    account = generateServiceAccount();
    tokens.trust(account);
    gcs = await startGcs(tokens);
    const res = await fetch(tokens.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: assertion(account, tokens.tokenUri) }),
    });
    expect(res.status).to.equal(200);
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  after(async () => {
    await gcs.close();
    await tokens.close();
  });

  it('the token endpoint refuses an assertion for another audience or with a bad signature', async () => {
    for (const a of [assertion(account, 'https://oauth2.googleapis.com/token'), assertion(generateServiceAccount(account.email), tokens.tokenUri)]) {
      const res = await fetch(tokens.tokenUri, { method: 'POST', body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: a }) });
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { error: string }).error).to.equal('invalid_grant');
    }
  });

  it('PUT with a bearer token stores the object with its headers; GET returns it', async () => {
    const put = await fetch(`${gcs.url}/weir-bucket/a/b%20c.log`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain', 'x-goog-acl': 'private', 'x-goog-storage-class': 'NEARLINE', 'x-goog-meta-team': 'obs' },
      body: 'hello',
    });
    expect(put.status).to.equal(200);
    const o = gcs.objects.get('weir-bucket/a/b c.log')!;
    expect(o).to.include({ contentType: 'text/plain', storageClass: 'NEARLINE', acl: 'private' });
    expect(o.metadata).to.deep.equal({ team: 'obs' });
    const get = await fetch(`${gcs.url}/weir-bucket/a/b%20c.log`, { headers: { authorization: `Bearer ${token}` } });
    expect(await get.text()).to.equal('hello');
  });

  it('refuses what the service refuses, with XML error bodies', async () => {
    const noAuth = await fetch(`${gcs.url}/weir-bucket/x`, { method: 'PUT', body: 'x' });
    expect(noAuth.status).to.equal(401);
    expect(await noAuth.text()).to.include('<Code>AuthenticationRequired</Code>');
    const auth = { authorization: `Bearer ${token}` };
    const acl = await fetch(`${gcs.url}/weir-bucket/x`, { method: 'PUT', headers: { ...auth, 'x-goog-acl': 'everyone' }, body: 'x' });
    expect([acl.status, await acl.text()]).to.satisfy(([s, t]: [number, string]) => s === 400 && t.includes('InvalidArgument'));
    const cls = await fetch(`${gcs.url}/weir-bucket/x`, { method: 'PUT', headers: { ...auth, 'x-goog-storage-class': 'COLD' }, body: 'x' });
    expect(cls.status).to.equal(400);
    const bucket = await fetch(`${gcs.url}/no-bucket/x`, { method: 'PUT', headers: auth, body: 'x' });
    expect([bucket.status, await bucket.text()]).to.satisfy(([s, t]: [number, string]) => s === 404 && t.includes('NoSuchBucket'));
    expect((await fetch(`${gcs.url}/weir-bucket/`, { method: 'HEAD', headers: auth })).status).to.equal(200);
    expect((await fetch(`${gcs.url}/no-bucket/`, { method: 'HEAD', headers: auth })).status).to.equal(404);
    tokens.expire(token);
    const expired = await fetch(`${gcs.url}/weir-bucket/x`, { method: 'PUT', headers: auth, body: 'x' });
    expect(expired.status).to.equal(401);
  });
});
