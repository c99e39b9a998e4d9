import { expect } from 'chai';
import { interpolate } from '../../../lib/config/interpolate.js';

describe('environment interpolation', () => {
  const env = { A: 'x', EMPTY: '', NL: 'a\nb', 'DOT.NAME': 'd' };
  const ok: [string, string][] = [
    ['$A', 'x'],
    ['${A}', 'x'],
    ['pre-${A}-post', 'pre-x-post'],
    ['${MISSING:-def}', 'def'],
    ['${EMPTY:-def}', 'def'],
    ['${EMPTY-def}', ''],
    ['${MISSING-def}', 'def'],
    ['$$A', '$A'],
    ['cost $$5', 'cost $5'],
    ['$ x', '$ x'],
    ['${DOT.NAME}', 'd'],
    ['${A:?need}', 'x'],
  ];
  for (const [input, out] of ok) it(`${input} -> ${out}`, () => expect(interpolate(input, env)).to.deep.equal({ text: out, errors: [] }));

  const bad: [string, RegExp][] = [
    ['${MISSING}', /MISSING is not set/],
    ['$MISSING', /MISSING is not set/],
    ['${EMPTY:?must be set}', /EMPTY is required: must be set/],
    ['${MISSING?gone}', /MISSING is required: gone/],
    ['${NL}', /contains a newline/],
  ];
  for (const [input, re] of bad) it(`${input} is an error`, () => expect(interpolate(input, env).errors.join()).to.match(re));

  it('provides HOSTNAME when the environment lacks it', () => expect(interpolate('${HOSTNAME}', {}).text).to.not.equal(''));
});
