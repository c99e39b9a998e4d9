import { expect } from 'chai';
import { signSigV4, signingKey, verifySigV4 } from './sigv4.js';

const KEY = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('sigv4 verifier', () => {
  const req = () => {
    const body = Buffer.from('{"StreamName":"s"}');
    const headers = signSigV4({ method: 'POST', url: '/', headers: { host: 'kinesis.local', 'content-type': 'application/x-amz-json-1.1' }, body }, KEY, { region: 'us-east-1', service: 'kinesis' });
    return { method: 'POST', url: '/', headers, body };
  };

  it('derives the signing key of the published example', () => {
    // the documented example: secret above, 20150830, us-east-1, iam
    expect(signingKey(KEY.secretAccessKey, '20150830', 'us-east-1', 'iam').toString('hex')).to.equal('c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9');
  });

  it('accepts a correctly signed request', () => {
    expect(verifySigV4(req(), { service: 'kinesis', region: 'us-east-1', keys: [KEY] })).to.include({ ok: true, accessKeyId: KEY.accessKeyId });
  });

  it('refuses a changed body, a wrong secret, an unknown key, another service or region, and a missing header', () => {
    const r = req();
    expect(verifySigV4({ ...r, body: Buffer.from('{"StreamName":"t"}') }, { service: 'kinesis', keys: [KEY] })).to.include({ ok: false, code: 'InvalidSignatureException' });
    expect(verifySigV4(r, { service: 'kinesis', keys: [{ ...KEY, secretAccessKey: 'other' }] })).to.include({ ok: false, code: 'InvalidSignatureException' });
    expect(verifySigV4(r, { service: 'kinesis', keys: [{ ...KEY, accessKeyId: 'AKOTHER' }] })).to.include({ ok: false, code: 'UnrecognizedClientException' });
    expect(verifySigV4(r, { service: 'logs', keys: [KEY] })).to.include({ ok: false, code: 'InvalidSignatureException' });
    expect(verifySigV4(r, { service: 'kinesis', region: 'eu-west-1', keys: [KEY] })).to.include({ ok: false, code: 'InvalidSignatureException' });
    const { authorization: _, ...unsigned } = r.headers;
    expect(verifySigV4({ ...r, headers: unsigned }, { service: 'kinesis', keys: [KEY] })).to.include({ ok: false, code: 'MissingAuthenticationTokenException' });
  });

  it('refuses a request older than the allowed clock skew, and one without the session token the key needs', () => {
    const r = req();
    expect(verifySigV4(r, { service: 'kinesis', keys: [KEY], now: () => Date.now() + 20 * 60_000 })).to.include({ ok: false, code: 'InvalidSignatureException' });
    expect(verifySigV4(r, { service: 'kinesis', keys: [{ ...KEY, sessionToken: 'tok' }] })).to.include({ ok: false, code: 'UnrecognizedClientException' });
  });

  it('canonicalises the query string and the path', () => {
    const body = Buffer.alloc(0);
    const headers = signSigV4({ method: 'GET', url: '/a%20b/c?z=1&a=2&a=1', headers: { host: 'h' }, body }, KEY, { region: 'us-east-1', service: 's3' });
    expect(verifySigV4({ method: 'GET', url: '/a%20b/c?a=1&z=1&a=2', headers, body }, { service: 's3', keys: [KEY], doubleEncodePath: false })).to.include({ ok: true });
  });
});
