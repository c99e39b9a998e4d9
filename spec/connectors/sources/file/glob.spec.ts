import { expect } from 'chai';
import { compileGlob } from '../../../../connectors/sources/file/glob.js';

describe('file source: glob patterns', () => {
  const cases: [string, string, boolean][] = [
    ['/var/log/*.log', '/var/log/a.log', true],
    ['/var/log/*.log', '/var/log/sub/a.log', false],
    ['/var/log/**/*.log', '/var/log/a.log', true],
    ['/var/log/**/*.log', '/var/log/x/y/z.log', true],
    ['/var/log/**/*.log', '/var/logs/a.log', false],
    ['/var/log/**', '/var/log/x/y', true],
    ['/var/log/app-?.log', '/var/log/app-1.log', true],
    ['/var/log/app-?.log', '/var/log/app-12.log', false],
    ['/var/log/[ab].log', '/var/log/b.log', true],
    ['/var/log/[!ab].log', '/var/log/b.log', false],
    ['/var/log/[!ab].log', '/var/log/c.log', true],
    ['/var/log/{nginx,apache}/*.log', '/var/log/apache/e.log', true],
    ['/var/log/{nginx,apache}/*.log', '/var/log/other/e.log', false],
    ['/var/log/a.b', '/var/log/aXb', false],
    ['/var/log/a+(b).log', '/var/log/a+(b).log', true],
  ];
  for (const [pattern, path, expected] of cases)
    it(`${pattern} ${expected ? 'matches' : 'does not match'} ${path}`, () => {
      expect(compileGlob(pattern).regex.test(path)).to.equal(expected);
    });

  it('the walk starts at the longest directory without glob characters, and goes deep only when needed', () => {
    expect(compileGlob('/var/log/*.log')).to.include({ base: '/var/log', deep: false });
    expect(compileGlob('/var/log/**/*.log')).to.include({ base: '/var/log', deep: true });
    expect(compileGlob('/var/*/app/*.log')).to.include({ base: '/var', deep: true });
  });
});
