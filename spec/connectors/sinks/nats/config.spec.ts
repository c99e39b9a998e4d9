/** The nats sink's options: defaults, the shorthand of `jetstream`, server addresses and auth strategies. */
import { expect } from 'chai';
import * as v from 'valibot';
import { NatsSinkConfig } from '../../../../connectors/sinks/nats/config.js';

const base = { type: 'nats', inputs: ['in'], url: 'nats://127.0.0.1:4222', subject: 'logs.{{ app }}', encoding: { codec: 'json' } };
const issues = (c: Record<string, unknown>) =>
  (v.safeParse(NatsSinkConfig, c).issues ?? []).map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`);

describe('nats sink options', () => {
  it('defaults as Vector does: connection name "vector", one request at a time, plain NATS', () => {
    const c = v.parse(NatsSinkConfig, base);
    expect(c.connection_name).to.equal('vector');
    expect(c.request.concurrency).to.equal('none');
    expect(c.jetstream).to.deep.equal({ enabled: false, headers: {} });
  });

  it('takes jetstream as a boolean or as an object', () => {
    expect(v.parse(NatsSinkConfig, { ...base, jetstream: true }).jetstream).to.deep.equal({ enabled: true, headers: {} });
    expect(v.parse(NatsSinkConfig, { ...base, jetstream: { enabled: true, headers: { message_id: '{{ id }}' } } }).jetstream).to.deep.equal({
      enabled: true,
      headers: { message_id: '{{ id }}' },
    });
    expect(issues({ ...base, jetstream: { enabled: true, stream: 'x' } })).to.have.length.greaterThan(0);
  });

  it('takes several comma-separated servers and names a bad one', () => {
    expect(v.parse(NatsSinkConfig, { ...base, url: 'nats://a:4222, tls://b:4223,c:4224' }).url).to.equal('nats://a:4222, tls://b:4223,c:4224');
    expect(issues({ ...base, url: 'http://a:4222' })).to.deep.equal(['url: "http://a:4222": the scheme must be nats:// or tls://']);
    expect(issues({ ...base, url: 'nats://a:4222,' })).to.deep.equal(['url: an address is empty (check the commas)']);
  });

  it('requires url, subject and encoding', () => {
    const { url: _u, subject: _s, encoding: _e, ...rest } = base;
    const found = issues(rest);
    expect(found.some((i) => i.startsWith('url:'))).to.equal(true);
    expect(found.some((i) => i.startsWith('subject:'))).to.equal(true);
    expect(found.some((i) => i.startsWith('encoding:'))).to.equal(true);
  });

  it('knows the four auth strategies by Vector\'s names and refuses others', () => {
    for (const auth of [
      { strategy: 'user_password', user_password: { user: 'u', password: 'p' } },
      { strategy: 'token', token: { value: 't' } },
      { strategy: 'credentials_file', credentials_file: { path: '/etc/nats/x.creds' } },
      { strategy: 'nkey', nkey: { nkey: 'UA', seed: 'SU' } },
    ])
      expect(v.parse(NatsSinkConfig, { ...base, auth }).auth).to.deep.equal(auth);
    expect(issues({ ...base, auth: { strategy: 'basic', basic: {} } })).to.have.length(1);
    expect(issues({ ...base, auth: { strategy: 'token', token: { value: 't', extra: 1 } } })).to.have.length(1);
  });

  it('refuses unknown options and a malformed subject template', () => {
    expect(issues({ ...base, topic: 'x' })).to.have.length(1);
    expect(issues({ ...base, subject: 'a.{{ b' })[0]).to.match(/^subject: /);
    expect(issues({ ...base, request: { headers: { a: 'b' } } })).to.deep.equal(['request.headers: does not apply to this sink: it publishes NATS messages, not HTTP requests']);
  });
});
