/**
 * Remap regexes never take exponential time (docs/limits.md): patterns are rewritten so that V8's
 * linear-time engine can run them, with the same matches as the pattern as written; the rest get a
 * backtrack limit; look-around and backreferences are compile errors, as in Rust's `regex`.
 * Each pathological case below took seconds to hours before; here it must simply finish (mocha's
 * timeout is the only clock) with the right answer.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { GuardedRegExp, LONG_INPUT, MAX_BOUNDED_INPUT, RegexInputTooLong, hasBacktrackLimit, isLinearCapable } from '../../lib/bounded-regex.js';
import type { Value } from '../../lib/value.js';
import { CompileError, compile } from '../../remap/index.js';
import { VrlRegex, allMatches, builtRegex, compileRegex } from '../../remap/regex.js';
import { isBacktrackFree } from '../../remap/regex-analysis.js';
import { type RegexNode, parseRegex } from '../../remap/regex-syntax.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs a one-expression program on `{ s }` (`.s` is the string) and returns its value (or the error text). */
function run(source: string, s: string): Value {
  const r = compile(source.replaceAll('.s', 'string!(.s)')).run({ s });
  return r.ok ? r.value : `error: ${r.error}`;
}

/** Every match as plain data: index, groups by number, named groups. */
function matches(re: RegExp, s: string, all: (re: RegExp, s: string) => Iterable<RegExpMatchArray>): unknown[] {
  return [...all(re, s)].map((m) => ({ index: m.index, groups: [...m], named: m.groups ? { ...m.groups } : undefined }));
}
const nativeAll = (re: RegExp, s: string) => s.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g'));

describe('remap regexes: linear time', () => {
  describe('pathological patterns and inputs finish with the right answer', () => {
    it('match(s, r\'^(a+)+$\') on 40 a\'s and a "!"', () => {
      expect(run(`match(.s, r'^(a+)+$')`, 'a'.repeat(40) + '!')).to.equal(false);
      expect(run(`match(.s, r'^(a+)+$')`, 'a'.repeat(40))).to.equal(true);
    });

    it("parse_regex(s, r'^(\\w+\\s?)*$') on 65 characters", () => {
      const s = 'word '.repeat(12) + 'tail!';
      expect(s).to.have.length(65);
      expect(run(`parse_regex(.s, r'^(\\w+\\s?)*$') ?? "no match"`, s)).to.equal('no match');
      expect(run(`parse_regex!(.s, r'^(\\w+\\s?)*$')`, 'word '.repeat(12) + 'tail')).to.deep.equal({});
    });

    it("replace(s, r'(x+x+)+y', \"\") on 28 x's", () => {
      expect(run(`replace(.s, r'(x+x+)+y', "")`, 'x'.repeat(28))).to.equal('x'.repeat(28));
      expect(run(`replace(.s, r'(x+x+)+y', "-")`, 'x'.repeat(28) + 'y')).to.equal('-');
    });

    it('case-insensitive, counted and nested patterns are rewritten, not left to backtrack', () => {
      for (const p of ['(?i)^(a+)+$', '^(?:a|aa){1,40}$', '(?i)^([a-z]+\\d{0,20})+$', '^(\\w+\\s?)*$']) {
        const re = compileRegex(p);
        expect(re.mode, p).to.equal('long');
        expect(isLinearCapable(re.js, re.flags), p).to.equal(true);
        expect(re.test('a'.repeat(50) + '!'), p).to.equal(false);
      }
    });

    it('parse_common_log and parse_apache_log on 56 spaces and an x', () => {
      const s = ' '.repeat(56) + 'x';
      expect(run('parse_common_log(.s) ?? "no match"', s)).to.equal('no match');
      expect(run('parse_apache_log(.s, format: "common") ?? "no match"', s)).to.equal('no match');
      expect(run('parse_apache_log(.s, format: "combined") ?? "no match"', s)).to.equal('no match');
      expect(run('parse_apache_log(.s, format: "error") ?? "no match"', ' '.repeat(56) + '[x')).to.equal('no match');
    });

    it('parse_nginx_log(format: "error") on a 20 kB line', () => {
      const s = '2024/01/02 03:04:05 ' + 'a '.repeat(10_000);
      expect(run('parse_nginx_log(.s, format: "error") ?? "no match"', s)).to.equal('no match');
      const good = '2024/01/02 03:04:05 [error] 31#31: *1 open() failed, client: 10.0.0.1, server: x';
      expect(run('parse_nginx_log!(.s, format: "error").client', good)).to.equal('10.0.0.1');
    });

    it('parse_grok with look-around (IPV4) has a backtrack limit', () => {
      const s = '1.2.3.4 ' + 'a'.repeat(5000);
      expect(run('parse_grok(.s, "%{IPV4:ip} %{DATA:a}%{DATA:b}%{DATA:c}x") ?? "no match"', s)).to.equal('no match');
      expect(run('parse_grok!(.s, "%{IPV4:ip} %{GREEDYDATA:rest}").ip', '10.1.2.3 hello')).to.equal('10.1.2.3');
    });

    it('match_datadog_query wildcards', () => {
      const s = 'a'.repeat(20_000);
      expect(run('match_datadog_query({"m": .s}, "@m:*a*a*a*a*a*a*b")', s)).to.equal(false);
      expect(run('match_datadog_query({"m": .s}, "@m:*a*a*")', s)).to.equal(true);
    });
  });

  describe('rewrites keep the matches of the pattern as written', () => {
    // patterns over a small alphabet, with case, classes, groups, alternation and counts past 16
    const names = { n: 0 };
    const atom: fc.Arbitrary<string> = fc.constantFrom('a', 'b', 'A', 'ß', 'µ', '.', '\\d', '[ab]', '[^a]', '[a-c]', '[A-Bx]', '\\b', '^', '$');
    const quant = fc.constantFrom('', '', '*', '+', '?', '*?', '+?', '{2}', '{17}', '{0,3}', '{1,20}', '{2,}', '{0,18}?', '{3,40}');
    const tree = fc.letrec<{ re: string }>((tie) => ({
      re: fc.oneof(
        { depthSize: 'small' },
        fc.tuple(atom, quant).map(([a, q]) => (/^[$^]|\\b/.test(a) ? a : a + q)),
        fc.array(tie('re'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('')),
        fc.tuple(tie('re'), tie('re')).map(([x, y]) => `${x}|${y}`),
        fc.tuple(fc.constantFrom('(', '(?:', 'named'), tie('re'), quant).map(([g, x, q]) => `${g === 'named' ? `(?P<g${names.n++}>` : g}${x})${q}`),
      ),
    })).re;
    const input = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', 'ß', 'µ', 'Μ', '1', ' ', 'x'), maxLength: 30 });
    const flags = fc.constantFrom('', '(?i)', '(?m)', '(?s)', '(?is)');

    it('same matches and captures as the JS pattern as written, and on the linear engine', () => {
      fc.assert(
        fc.property(tree, flags, fc.array(input, { minLength: 1, maxLength: 4 }), (p, f, inputs) => {
          let re: VrlRegex;
          try {
            re = compileRegex(f + p);
          } catch {
            return; // a pattern JavaScript rejects (an empty alternative quantified, …)
          }
          // a bounded pattern is the pattern as written, until its backtrack limit answers "no match"
          if (re.mode === 'bounded') return;
          const written = new RegExp(p.replace(/\(\?P</g, '(?<'), f.replace(/[()?]/g, ''));
          const linear = new RegExp(re.js, re.flags + 'l');
          for (const s of inputs) {
            const expected = matches(written, s, nativeAll);
            expect(matches(re, s, allMatches), `${f}${p} on ${JSON.stringify(s)}`).to.deep.equal(expected);
            expect(matches(linear, s, nativeAll), `${f}${p} (linear engine) on ${JSON.stringify(s)}`).to.deep.equal(expected);
          }
        }),
        // a fixed seed unless WEIR_FUZZ_SEED asks for another: some random patterns (groups of \b
        // repeated through nested counts) make V8's regex compiler run out of zone memory, which ends
        // the process instead of failing one test
        { numRuns: Number(process.env.WEIR_FUZZ_RUNS ?? 400), seed: Number(process.env.WEIR_FUZZ_SEED ?? 20261124) },
      );
    });

    it('case-insensitive classes and characters match exactly what the i flag matches', () => {
      const all = Array.from({ length: 0x500 }, (_, c) => String.fromCharCode(c)).join('');
      for (const p of ['k', 's', 'µ', 'ſ', '[a-z]', '[^a-z]', '[\\u00e0-\\u00ff]', '[ǅ]', '\\w', '[\\d_]', 'σ']) {
        const re = compileRegex('(?i)' + p);
        expect(re.mode, p).to.not.equal('bounded');
        expect(re.flags, p).to.not.include('i');
        const got = [...allMatches(re, all)].map((m) => m[0]).join('');
        const want = [...all.matchAll(new RegExp(p, 'gi'))].map((m) => m[0]).join('');
        expect(got, p).to.equal(want);
      }
    });
  });

  describe('look-around and backreferences are compile errors, as in Rust regex', () => {
    const cases: [string, string][] = [
      ["r'(?=a)b'", 'look-around, including look-ahead and look-behind, is not supported'],
      ["r'a(?!b)'", 'look-around, including look-ahead and look-behind, is not supported'],
      ["r'(?<=a)b'", 'look-around, including look-ahead and look-behind, is not supported'],
      ["r'(?<!a)b'", 'look-around, including look-ahead and look-behind, is not supported'],
      ["r'(a)\\1'", 'backreferences are not supported'],
      ["r'(?P<x>a)\\k<x>'", 'backreferences are not supported'],
    ];
    for (const [lit, reason] of cases) {
      it(`${lit}: E101 invalid regular expression`, () => {
        let err: unknown;
        try {
          compile(`match("ab", ${lit})`);
        } catch (e) {
          err = e;
        }
        expect(err).to.be.instanceOf(CompileError);
        const d = (err as CompileError).diagnostics[0]!;
        expect(d.code).to.equal(101);
        expect((err as CompileError).message).to.include(`regex parse error: ${reason}`);
      });
    }

    it('to_regex of such a pattern fails the call', () => {
      expect(run('to_regex(.s) ?? "refused"', '(?=a)b')).to.equal('refused');
    });

    it('an escaped parenthesis or a class is not look-around', () => {
      expect(run(`match(.s, r'\\(?=x[(?=]')`, '(=x(')).to.equal(true);
    });
  });

  describe('modes', () => {
    it('an anchored, deterministic pattern stays on the backtracking engine for any input length (the benchmark pattern)', () => {
      const apache = String.raw`^(?P<host>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<timestamp>[^\]]+)\] "(?P<method>\S+) (?P<path>\S+) (?P<protocol>[^"]+)" (?P<status>\d+) (?P<size>\d+|-)$`;
      expect(compileRegex(apache).mode).to.equal('fast');
      expect(compileRegex(String.raw`\$\{(\w+)\}`).mode).to.equal('fast');
      for (const p of [String.raw`\s+$`, String.raw`(\w+)(?:-\w+)*@`, '^(a|ab)*c', '(?i)(a+)+', '^.*x.*y$']) expect(compileRegex(p).mode, p).to.not.equal('fast');
    });

    it('long mode: a long input goes to the linear engine, with the same result (\\s+$ on 100,000 spaces took 30 s)', () => {
      const re = compileRegex(String.raw`\s+$`);
      expect(re.mode).to.equal('long');
      const s = 'a' + ' '.repeat(100_000) + 'x';
      expect(re.test(s)).to.equal(false);
      expect(run(`replace(.s, r'\\s+$', "")`, s)).to.equal(s);
      expect(run(`replace(.s, r'\\s+$', "")`, 'a' + ' '.repeat(LONG_INPUT + 10))).to.equal('a');
      expect(run(`camelcase(.s)`, 'A'.repeat(50_000) + 'b')).to.have.length(50_001);
      expect(run(`decode_base64(.s) ?? "refused"`, '='.repeat(100_000) + 'x')).to.equal('refused');
    });

    it('V8 provides the backtrack limit on this Node.js', () => {
      expect(hasBacktrackLimit).to.equal(true);
    });

    it('bounded mode: no match once the backtrack limit is spent; inputs over the cap are refused', () => {
      const re = new GuardedRegExp('^(a+)+(?=b)$', '', 'bounded');
      expect(re.exec('a'.repeat(40) + '!')).to.equal(null);
      expect(new GuardedRegExp('^(a+)+(?=b)', '', 'bounded').test('aaab')).to.equal(true);
      expect(() => re.test('a'.repeat(MAX_BOUNDED_INPUT + 1))).to.throw(RegexInputTooLong);
    });

    it('a remap regex the rewrite cannot bring to the linear engine is bounded, and stays bounded in copies', () => {
      const re = compileRegex('^((a|aa)+){2,30}$');
      expect(re.mode).to.equal('bounded');
      const s = 'a'.repeat(40) + '!';
      expect(re.test(s)).to.equal(false);
      expect([...allMatches(re, s)]).to.deep.equal([]);
      expect(s.split(re)).to.deep.equal([s]);
      expect(run(`replace(.s, r'^((a|aa)+){2,30}$', "")`, s)).to.equal(s);
      expect(run(`replace(.s, r'^((a|aa)+){2,30}$', "x")`, 'aaaa')).to.equal('x');
      expect(run(`match(.s, r'^((a|aa)+){2,30}$')`, 'a'.repeat(MAX_BOUNDED_INPUT + 1))).to.match(/^error: .*input of 8193 characters is longer than 8192/);
    });

    it('grok patterns with look-around are bounded; without, they are linear', () => {
      expect(builtRegex('(?<![0-9])1').mode).to.equal('bounded');
      expect(run('parse_grok!(.s, "%{WORD:w} %{NUMBER:n}").n', 'abc 12')).to.equal('12');
    });
  });

  describe("the standard library's own patterns", () => {
    /** Regex literals of a TypeScript file, with line numbers. */
    function regexLiterals(file: string): { line: number; body: string; flags: string; guarded: boolean }[] {
      const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const out: { line: number; body: string; flags: string; guarded: boolean }[] = [];
      const visit = (n: ts.Node): void => {
        if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) {
          const text = n.getText();
          const end = text.lastIndexOf('/');
          // `builtRegex(/…/.source)`: guarded at run time
          const p = n.parent;
          const guarded = ts.isPropertyAccessExpression(p) && p.name.text === 'source' && ts.isCallExpression(p.parent) && p.parent.expression.getText() === 'builtRegex';
          out.push({ line: src.getLineAndCharacterOfPosition(n.getStart()).line + 1, body: text.slice(1, end), flags: text.slice(end + 1), guarded });
        }
        ts.forEachChild(n, visit);
      };
      visit(src);
      return out;
    }

    /** Longest match of a pattern, Infinity with an unbounded repetition. */
    function maxLength(n: RegexNode): number {
      switch (n.t) {
        case 'alt':
          return Math.max(...n.alts.map(maxLength));
        case 'seq':
          return n.items.reduce((sum, x) => sum + maxLength(x), 0);
        case 'group':
          return maxLength(n.body);
        case 'quant':
          return n.max === Infinity ? Infinity : n.max * maxLength(n.body);
        case 'look':
        case 'backref':
          return Infinity;
        case 'other':
          return n.quantifiable ? 1 : 0;
        default:
          return 1;
      }
    }

    // linear by inspection, each with the reason
    const REVIEWED = new Map([
      ['/parameter "([^"]+)" expects (.*)$/', "the compiler's own message text"],
      ['/^Invalid regular expression: \\/.*\\/[a-z]*: /', "V8's own message text"],
      ['/=\\?([^?]+)\\?([bBqQ])\\?([^?]*)\\?=/g', 'a match starts at "=?" and each [^?] run stops at the next "?": runs scanned once'],
      ['/(\\d+\\.\\d+\\.\\d+\\.\\d+)$/', 'runs on a text already validated as an IPv6 address (at most 45 characters)'],
      ['/(?:^|[:,[])\\s*-?\\d+(?:\\.\\d+)?[eE]|(?:^|[:,[])\\s*-?\\d+\\.0+(?![0-9])|__proto__|\\\\u[dD][89a-fA-F]/', 'starts only at the text start or after : , [, which the scanned runs cannot hold; the other two alternatives are fixed-length'],
      ['/\\B(?=(\\d{3})+(?!\\d))/g', 'runs on the digits of one number'],
      ['/^(-?)0([xbo])(.*)$/i', 'anchored, one choice per character'],
      ['/(?:^|\\s)([A-Za-z0-9_.[\\]-]+)=/g', 'starts only at the start or at white space, which the scanned runs cannot hold'],
      ['/%\\{(\\w+)(?::([\\w.@[\\]-]+))?(?::\\w+)?\\}/g', 'runs on the grok pattern text of the program'],
      ['/^([A-Za-z_][\\w]*):(?!:)/', 'anchored, one choice per character'],
      ['/^(?:<(\\d{1,3})>)?([A-Za-z]{3}) +(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?(?: (\\d{4}))?(?: |:|$)/', 'anchored; the one ambiguity (a space before the year or the end) costs a constant'],
      ['/^([^\\s[\\]:]+)(?:\\[([^\\]]*)\\])?:(?: |$)?/', 'anchored; the optional end costs a constant'],
      ['/(-?\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|cs|ds|s|m|h|d|w)/y', 'sticky; the unit alternatives cost a constant'],
      ['/&(#x[0-9a-fA-F]+|#\\d+|\\w+);/g', 'starts only at &, which the scanned runs cannot hold'],
      ['/[^A-Za-z0-9]+/', 'one repeated class: every search that scans a run matches it'],
      ['/\\u001b\\[[0-9;?]*[ -/]*[@-~]|\\u001b[@-Z\\\\-_]/g', 'starts only at ESC, which the scanned runs cannot hold'],
      ['/^"(.+)"$/', 'anchored, on a query term: one scan and one step back'],
      ['/^xn--/i', 'anchored, fixed length'],
      ['/^([+-]?)(inf|infinity|nan)$/i', 'anchored, fixed length'],
    ]);

    it('every regex literal in remap/ and lib/search-query.ts is linear: backtrack-free, guarded, short, or reviewed', () => {
      const files = [
        ...readdirSync(join(repoRoot, 'remap')).map((f) => join(repoRoot, 'remap', f)),
        ...readdirSync(join(repoRoot, 'remap/compile')).map((f) => join(repoRoot, 'remap/compile', f)),
        ...readdirSync(join(repoRoot, 'remap/stdlib')).map((f) => join(repoRoot, 'remap/stdlib', f)),
        join(repoRoot, 'lib/search-query.ts'),
      ].filter((f) => f.endsWith('.ts'));
      const unreviewed: string[] = [];
      const used = new Set<string>();
      for (const f of files) {
        for (const { line, body, flags, guarded } of regexLiterals(f)) {
          const text = `/${body}/${flags}`;
          if (REVIEWED.has(text)) {
            used.add(text);
            continue;
          }
          if (guarded) continue;
          const plainFlags = flags.replace(/[gu]/g, '');
          let tree: RegexNode | undefined;
          try {
            tree = parseRegex(body);
          } catch {
            tree = undefined;
          }
          if (tree && isLinearCapable(body, plainFlags) && (isBacktrackFree(tree, plainFlags) || maxLength(tree) <= 64)) continue;
          unreviewed.push(`${relative(repoRoot, f)}:${line}: ${text}`);
        }
      }
      expect(unreviewed).to.deep.equal([]);
      expect([...REVIEWED.keys()].filter((k) => !used.has(k)), 'reviewed patterns no longer in the code').to.deep.equal([]);
    });
  });
});
