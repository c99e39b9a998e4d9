import { expect } from 'chai';
import { compileNoProxy, proxyFor, resolveProxy } from '../../../lib/net/proxy.js';

describe('lib/net/proxy', () => {
  it('no_proxy: domain, leading dot, wildcard, IP, CIDR, *', () => {
    const np = compileNoProxy(['example.com', '.corp.test', '*.wild.test', '10.1.2.3', '192.168.0.0/16', 'fd00::/8', 'host.test:8080']);
    expect(np.matches('example.com')).to.equal(true);
    expect(np.matches('EXAMPLE.com.')).to.equal(true);
    expect(np.matches('a.example.com')).to.equal(false);
    expect(np.matches('corp.test')).to.equal(true);
    expect(np.matches('x.y.corp.test')).to.equal(true);
    expect(np.matches('xcorp.test')).to.equal(false);
    expect(np.matches('a.wild.test')).to.equal(true);
    expect(np.matches('wild.test')).to.equal(false);
    expect(np.matches('10.1.2.3')).to.equal(true);
    expect(np.matches('10.1.2.4')).to.equal(false);
    expect(np.matches('192.168.44.1')).to.equal(true);
    expect(np.matches('192.169.0.1')).to.equal(false);
    expect(np.matches('[fd12::1]')).to.equal(true);
    expect(np.matches('host.test')).to.equal(true);
    expect(compileNoProxy(['*']).matches('anything.at.all')).to.equal(true);
    expect(compileNoProxy([]).matches('example.com')).to.equal(false);
    expect(() => compileNoProxy(['300.1.1.1/8'])).to.throw(/CIDR/);
  });

  it('environment: lowercase beats uppercase; NO_PROXY applies', () => {
    const env = { HTTP_PROXY: 'http://upper:1', http_proxy: 'http://lower:2', HTTPS_PROXY: 'http://secure:3', NO_PROXY: 'skip.test' };
    const p = resolveProxy(undefined, undefined, env)!;
    expect(p.http).to.equal('http://lower:2');
    expect(p.https).to.equal('http://secure:3');
    expect(proxyFor(p, new URL('http://a.test/'))).to.equal('http://lower:2');
    expect(proxyFor(p, new URL('https://a.test/'))).to.equal('http://secure:3');
    expect(proxyFor(p, new URL('http://skip.test/'))).to.equal(undefined);
  });

  it('component over global over environment; enabled = false turns it off; no_proxy lists add up', () => {
    const env = { HTTP_PROXY: 'http://env:1' };
    const global = { enabled: true, http: 'http://global:2', no_proxy: ['g.test'] };
    const comp = { enabled: true, http: 'http://comp:3', no_proxy: ['c.test'] };
    expect(resolveProxy(undefined, global, env)!.http).to.equal('http://global:2');
    const p = resolveProxy(comp, global, env)!;
    expect(p.http).to.equal('http://comp:3');
    expect(p.noProxy.matches('g.test') && p.noProxy.matches('c.test')).to.equal(true);
    expect(resolveProxy({ enabled: false, no_proxy: [] }, global, env)).to.equal(undefined);
    expect(resolveProxy(undefined, undefined, {})).to.equal(undefined);
    expect(proxyFor(resolveProxy(comp, undefined, {}), new URL('https://x.test/'))).to.equal(undefined); // no https proxy set
  });
});
