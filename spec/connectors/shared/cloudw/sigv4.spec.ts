import { expect } from 'chai';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../../helpers/sdk-sha256.js';
import { signV4 } from '../../../../connectors/shared/cloudw/sigv4.js';

const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('connectors/shared/cloudw: SigV4 of plain HTTP requests', () => {
  it('signs as the SDK\'s own signer does (headers, query, body, session token)', async () => {
    const cases = [
      { method: 'POST', url: 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1234/api/v1/remote_write', body: Buffer.from([1, 2, 3, 0xff]), token: undefined },
      { method: 'GET', url: 'https://example.amazonaws.com/a%20b/c?z=1&a=x%2Fy&a=b', body: undefined, token: 'session-token-value' },
    ];
    const now = Date.UTC(2015, 7, 30, 12, 36, 0);
    for (const c of cases) {
      const headers = { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' };
      const mine = signV4({ method: c.method, url: c.url, headers, body: c.body }, { ...creds, sessionToken: c.token }, 'eu-west-1', 'aps', now);
      const u = new URL(c.url);
      const query: Record<string, string | string[]> = {};
      for (const [k, v] of u.searchParams) query[k] = k in query ? ([] as string[]).concat(query[k]!, v) : v;
      const signer = new SignatureV4({ credentials: { ...creds, sessionToken: c.token }, region: 'eu-west-1', service: 'aps', sha256: Sha256 });
      const theirs = await signer.sign(
        {
          method: c.method,
          protocol: u.protocol,
          hostname: u.hostname,
          path: u.pathname,
          query,
          headers: { ...headers, host: u.host, 'x-amz-content-sha256': mine['x-amz-content-sha256']! },
          body: c.body,
        },
        { signingDate: new Date(now) },
      );
      expect(mine.authorization, c.url).to.equal(theirs.headers.authorization);
      expect(mine['x-amz-date']).to.equal('20150830T123600Z');
      if (c.token) expect(mine['x-amz-security-token']).to.equal(c.token);
    }
  });
});
