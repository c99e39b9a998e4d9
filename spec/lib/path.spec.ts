import { expect } from 'chai';
import { parsePath, formatPath, getPath, setPath, removePath, PathSyntaxError } from '../../lib/path.js';
import type { ObjectValue } from '../../lib/value.js';

describe('paths', () => {
  const parses: [string, (string | number)[]][] = [
    ['.', []],
    ['.a', ['a']],
    ['a.b', ['a', 'b']],
    ['.a.b[0]', ['a', 'b', 0]],
    ['.a[-1]', ['a', -1]],
    ['."odd key".x', ['odd key', 'x']],
    ['."a.b"', ['a.b']],
    ['."q\\"uote"', ['q"uote']],
    ['.foo-bar', ['foo-bar']],
    ['.@timestamp', ['@timestamp']],
    ['[0].a', [0, 'a']],
  ];
  for (const [text, segs] of parses) it(`parses ${text}`, () => expect(parsePath(text)).to.deep.equal(segs));

  for (const bad of ['', '.a.', '.a[x]', '.a["b"', '."open', '.a b'])
    it(`rejects ${JSON.stringify(bad)}`, () => expect(() => parsePath(bad)).to.throw(PathSyntaxError));

  it('formats back to canonical text', () => {
    expect(formatPath(['a', 'b c', 0])).to.equal('.a."b c"[0]');
    expect(formatPath([])).to.equal('.');
  });

  it('gets, sets (creating containers) and removes', () => {
    const root: ObjectValue = { a: { b: [1, 2, 3] } };
    expect(getPath(root, parsePath('.a.b[-1]'))).to.equal(3);
    expect(getPath(root, parsePath('.a.x'))).to.equal(undefined);
    setPath(root, parsePath('.x.y[2].z'), 'v');
    expect(root.x).to.deep.equal({ y: [null, null, { z: 'v' }] });
    expect(removePath(root, parsePath('.a.b[0]'))).to.equal(1);
    expect(getPath(root, parsePath('.a.b'))).to.deep.equal([2, 3]);
    expect(removePath(root, parsePath('.nope'))).to.equal(undefined);
  });
});
