/**
 * parse_regex and parse_regex_all read matches through a capture plan made once per pattern: the
 * pattern with its groups unnamed, names read by group number. Their objects must equal what the
 * matches' own `groups` give, for any pattern and input.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { GuardedRegExp } from '../../lib/bounded-regex.js';
import type { ObjectValue, Value } from '../../lib/value.js';
import { compile } from '../../remap/index.js';
import { compileRegex } from '../../remap/regex.js';
import { capturePlan, unnameGroups } from '../../remap/regex-captures.js';

/** parse_regex as read from a native match's `groups`: participating groups renumbered, then names. */
function expectedCaptures(m: RegExpMatchArray, names: readonly string[], numeric: boolean): ObjectValue {
  const out: ObjectValue = {};
  if (numeric) {
    let idx = 0;
    for (let i = 0; i < m.length; i++) if (m[i] !== undefined) out[String(idx++)] = m[i]!;
  }
  for (const n of names) out[n] = m.groups?.[n] ?? null;
  return out;
}

function namesOf(js: string): string[] {
  const m = new RegExp(js + '|').exec('')!;
  return m.groups ? Object.keys(m.groups) : [];
}

function expectedOne(pattern: string, s: string, numeric: boolean): Value {
  const js = pattern.replaceAll('(?P<', '(?<');
  const m = new RegExp(js).exec(s);
  return m ? expectedCaptures(m, namesOf(js), numeric) : 'error';
}

function expectedAll(pattern: string, s: string, numeric: boolean): Value {
  const js = pattern.replaceAll('(?P<', '(?<');
  return [...s.matchAll(new RegExp(js, 'g'))].map((m) => expectedCaptures(m, namesOf(js), numeric));
}

function run(source: string, s: string): Value {
  const r = compile(source).run({ s });
  return r.ok ? r.value : 'error';
}

/** Patterns of named, unnamed and non-capturing groups, optional parts, alternatives and classes; names made unique. */
const patternArb: fc.Arbitrary<string> = fc
  .letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('a', 'b', '\\d', '[ab]', '[(]', '\\(', '.', 'x*'),
      fc.tuple(tie('node'), tie('node')).map(([l, r]) => l + r),
      fc.tuple(tie('node'), tie('node')).map(([l, r]) => `${l}|${r}`),
      tie('node').map((x) => `(?P<@>${x})`),
      tie('node').map((x) => `(${x})`),
      tie('node').map((x) => `(?:${x})?`),
      tie('node').map((x) => `(?P<@>${x})?`),
    ),
  }))
  .node.map((p) => {
    let n = 0;
    return p.replaceAll('@', () => `g${n++}`);
  });

const inputArb = fc.stringMatching(/^[ab1()x\n]{0,12}$/);

describe('remap regex captures', () => {
  describe('unnameGroups', () => {
    it('unnames named groups and numbers them among the unnamed ones', () => {
      expect(unnameGroups('(a)(?<x>b)(?:c)(?<y>d)')).to.deep.equal({ source: '(a)(b)(?:c)(d)', names: ['x', 'y'], numbers: [2, 3] });
    });
    it('leaves classes, escapes and look-behind alone', () => {
      expect(unnameGroups('[(?<a>]\\((?<=q)(?<!r)(?<b>s)')).to.deep.equal({ source: '[(?<a>]\\((?<=q)(?<!r)(s)', names: ['b'], numbers: [1] });
      expect(unnameGroups('[\\]()](?<c>t)')).to.deep.equal({ source: '[\\]()](t)', names: ['c'], numbers: [1] });
    });
    it('gives up on a name without its closing bracket', () => {
      expect(unnameGroups('(?<ab')).to.deep.equal({ source: '(?<ab', names: [], numbers: [] });
    });
    it('any JS pattern: the plan matches as the pattern does, names read as its groups', () => {
      const piece = fc.constantFrom('(', ')', '(?<n>', '(?<m>', '(?:', '(?<=', '(?!', '[', ']', '\\', '\\(', 'a', 'b', '|', '*', '?', '>', '<');
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 12 }), inputArb, (parts, s) => {
          const source = parts.join('');
          let re: RegExp;
          try {
            re = new RegExp(source);
          } catch {
            return;
          }
          const plan = capturePlan(re);
          const want = re.exec(s);
          const got = plan.first.exec(s);
          expect(got === null ? null : [...got]).to.deep.equal(want === null ? null : [...want]);
          if (want && got) expect(plan.named(got)).to.deep.equal(expectedCaptures(want, namesOf(source), false));
        }),
        { numRuns: 2000 },
      );
    });
  });

  describe('the plan of a pattern', () => {
    it('matches without a groups object and keeps the pattern mode', () => {
      for (const pattern of [String.raw`^(?P<host>\S+) \[(?P<ts>[^\]]+)\]$`, '(?P<a>a+)+$', '(?i)(?P<a>x{3})y']) {
        const re = compileRegex(pattern);
        const plan = capturePlan(re);
        expect(plan.first.source, pattern).not.to.include('(?<');
        expect((plan.first as GuardedRegExp).mode, pattern).to.equal(re.mode);
        expect((plan.every as GuardedRegExp).mode, pattern).to.equal(re.mode);
        expect(plan.every.global).to.equal(true);
        expect(plan.first.global).to.equal(false);
      }
      const m = capturePlan(compileRegex('(?P<a>x)(y)')).first.exec('xy')!;
      expect(m.groups).to.equal(undefined);
      expect(capturePlan(compileRegex('(?P<a>x)(y)')).named(m)).to.deep.equal({ a: 'x' });
    });
    it('is made once per regex', () => {
      const re = compileRegex('(?P<a>x)');
      expect(capturePlan(re)).to.equal(capturePlan(re));
    });
    it('keeps a group named __proto__ out of the object, as assigning the field did', () => {
      expect(run(String.raw`parse_regex!(string!(.s), r'(?P<__proto__>x)(?P<c>y)')`, 'xy')).to.deep.equal({ c: 'y' });
      expect(Object.getPrototypeOf(run(String.raw`parse_regex!(string!(.s), r'(?P<__proto__>x)(?P<c>y)')`, 'xy'))).to.equal(Object.prototype);
    });
  });

  describe('results equal the native matches', () => {
    it('parse_regex, with and without numeric groups', () => {
      fc.assert(
        fc.property(patternArb, inputArb, fc.boolean(), (pattern, s, numeric) => {
          const got = run(`parse_regex!(string!(.s), r'${pattern}', numeric_groups: ${numeric})`, s);
          expect(got).to.deep.equal(expectedOne(pattern, s, numeric));
          if (typeof got === 'object' && got !== null) expect(Object.keys(got)).to.deep.equal(Object.keys(expectedOne(pattern, s, numeric) as ObjectValue));
        }),
        { numRuns: 400 },
      );
    });
    it('parse_regex_all, empty matches included', () => {
      fc.assert(
        fc.property(patternArb, inputArb, fc.boolean(), (pattern, s, numeric) => {
          expect(run(`parse_regex_all!(string!(.s), r'${pattern}', numeric_groups: ${numeric})`, s)).to.deep.equal(expectedAll(pattern, s, numeric));
        }),
        { numRuns: 400 },
      );
    });
    it('a pattern held in a variable', () => {
      expect(run(String.raw`r = r'(?P<n>\w)(\d)?'; [parse_regex!(string!(.s), r), parse_regex_all!(string!(.s), r, true)]`, 'a1b')).to.deep.equal([
        { n: 'a' },
        [
          { '0': 'a1', '1': 'a', '2': '1', n: 'a' },
          { '0': 'b', '1': 'b', n: 'b' },
        ],
      ]);
    });
  });
});
