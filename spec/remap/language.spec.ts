/** Table-driven tests of the remap language: results, events after the run, diagnostics codes. */
import { expect } from 'chai';
import { Float, Timestamp, type Value } from '../../lib/value.js';
import { CompileError, type FnDef, compile } from '../../remap/index.js';
import * as K from '../../remap/kind.js';
import { parseJsonValue } from './harness.js';

const run = (src: string, event: Value = {}) => compile(src).run(event, {});

function codes(src: string): number[] {
  try {
    compile(src);
  } catch (e) {
    if (e instanceof CompileError) return e.diagnostics.map((d) => d.code);
    throw e;
  }
  return [];
}

describe('remap language', () => {
  describe('results', () => {
    const cases: [string, string, string?][] = [
      ['1 + 2 * 3', '7'],
      ['(1 + 2) * 3', '9'],
      ['5 / 2', '2.5'],
      ['1.5 + 1', '2.5'],
      ['"a" + "b"', '"ab"'],
      ['9223372036854775807 + 1', '-9223372036854775808'],
      ['true && false || true', 'true'],
      ['null || "x"', '"x"'],
      ['!true', 'false'],
      ['1 == 1.0', 'true'],
      ['"b" > "a"', 'true'],
      ['[1, 2, 3][-1]', '3'],
      ['{ "a": { "b": 1 } }.a.b', '1'],
      ['x = 1; x = x + 1; x', '2'],
      ['if false { 1 } else if true { 2 } else { 3 }', '2'],
      ['if false { 1 }', 'null'],
      ['5 / 0 ?? 7', '7'],
      ['ok, err = 1 / 0; [ok, err]', '[0.0, "can\'t divide by zero"]'],
      ['s\'a\\nb\'', '"a\\\\nb"'],
      ['"a\\tb"', '"a\\tb"'],
      ['x = "y"; "{{ x }}!"', '"y!"'],
      ['.a.b = 1; .', '{"a": {"b": 1}}'],
      ['.a[2] = 1; .a', '[null, null, 1]'],
      ['.message', '"hi"', '{"message": "hi"}'],
      ['del(.a); .', '{"b": 2}', '{"a": 1, "b": 2}'],
      ['exists(.a.b)', 'true', '{"a": {"b": null}}'],
      ['. |= {"b": 2}; .', '{"a": 1, "b": 2}', '{"a": 1}'],
      ['.(x | y)', '2', '{"y": 2}'],
      ['%m = 1; %m', '1'],
      ['upcase(downcase("AbC"))', '"ABC"'],
      ['to_unix_timestamp(t\'2021-01-01T00:00:00Z\', unit: "milliseconds")', '1609459200000'],
      ['parse_json!("{\\"a\\": [1, 2.0]}")', '{"a": [1, 2.0]}'],
      ['parse_key_value!("a=1 b=\\"x y\\" c")', '{"a": "1", "b": "x y", "c": true}'],
      ['parse_regex!("ab12", r\'(?P<l>[a-z]+)(?P<d>\\d+)\')', '{"l": "ab", "d": "12"}'],
      ['parse_regex!("ab12", r\'([a-z]+)(\\d+)\', numeric_groups: true)', '{"0": "ab12", "1": "ab", "2": "12"}'],
      ['includes([1, "a"], "a")', 'true'],
      ['match("foo", r\'^f\')', 'true'],
      ['string!(.a)', '"x"', '{"a": "x"}'],
      ['r = []; for_each([1, 2]) -> |i, v| { r = push(r, i + v) }; r', '[1, 3]'],
      ['map_values({"a": 1}) -> |v| { v + 1 }', '{"a": 2}'],
      ['filter([1, 2, 3]) -> |_i, v| { v > 1 }', '[2, 3]'],
      ['return 5; 6', '5'],
      ['parse_syslog!("<13>1 2020-03-13T20:45:38.119Z host app 12 ID1 - hi").procid', '12'],
      ['parse_syslog!("<34>Oct 11 22:14:15 mymachine su: \'su root\' failed").appname', '"su"'],
      ['to_timestamp!(1609459200) == t\'2021-01-01T00:00:00Z\'', 'true'],
      ['to_timestamp!("2021-01-01T00:00:00+01:00") == t\'2020-12-31T23:00:00Z\'', 'true'],
      ['parse_apache_log!(s\'127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 -\', "common").status', '200'],
      ['ip_cidr_contains!("10.0.0.0/8", "10.1.2.3")', 'true'],
      ['snakecase("fooBar baz")', '"foo_bar_baz"'],
      ["parse_xml!(s'<data a=\"x\"><item>true</item><item /><item>1.0</item></data>')", '{"data": {"@a": "x", "item": [true, {}, 1.0]}}'],
      ['decrypt!(encrypt!("secret", "AES-128-CBC-PKCS7", key: "0123456789abcdef", iv: "fedcba9876543210"), "AES-128-CBC-PKCS7", key: "0123456789abcdef", iv: "fedcba9876543210")', '"secret"'],
      ['parse_grok!("10.0.0.1 GET", "%{IP:ip} %{WORD:verb}")', '{"ip": "10.0.0.1", "verb": "GET"}'],
    ];
    for (const [src, want, input] of cases) {
      it(src, () => {
        const r = run(src, input ? parseJsonValue(input) : {});
        expect(r.ok, r.ok ? '' : r.error).to.equal(true);
        if (r.ok) expect(r.value).to.deep.equal(parseJsonValue(want));
      });
    }
  });

  it('keeps integers and floats apart', () => {
    const r = run('[1, 1.0]');
    expect(r.ok && r.value).to.deep.equal([1, new Float(1)]);
  });

  it('parses timestamp literals with nanoseconds', () => {
    const r = run("t'2021-02-02T19:41:00.123456789Z'");
    expect(r.ok && (r.value as Timestamp).toString()).to.equal('2021-02-02T19:41:00.123456789Z');
  });

  it('assignment copies containers (value semantics)', () => {
    const r = run('a = {"x": 1}; b = a; b.x = 2; [a.x, b.x]');
    expect(r.ok && r.value).to.deep.equal([1, 2]);
  });

  it('closure parameters are copies: writing into one leaves the event unchanged', () => {
    const r = run('. = {"arr": [{"a": 1}]}; for_each(.arr) -> |_i, v| { v.x = 1 }; .');
    expect(r.ok && r.value).to.deep.equal({ arr: [{ a: 1 }] });
  });

  it('reports runtime errors naming the function and its byte span', () => {
    const r = run('parse_json!("{ INVALID }")');
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.error).to.equal('function call error for "parse_json" at (0:26): unable to parse json: key must be a string at line 1 column 3');
  });

  it('aborts with a message and keeps the event as it was at the abort', () => {
    const r = run('.a = 1; abort "stop"; .b = 2');
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.aborted).to.equal(true);
      expect(r.error).to.equal('stop');
      expect(r.target).to.deep.equal({ a: 1 });
    }
  });

  describe('compile-time rejections', () => {
    const cases: [string, number[]][] = [
      ['parse_json("x")', [100]],
      ['.a = parse_json("x")', [103]],
      ['a, err = 5', [104]],
      ['nope(1)', [105]],
      ['upcase("a", "b")', [106]],
      ['upcase()', [107]],
      ['upcase(x: "a")', [108]],
      ['upcase(1)', [110]],
      ['upcase(.a)', [110]],
      ['if "x" { 1 }', [102]],
      ['to_int(5 / 0)', [630]],
      ['x', [701]],
      ['!1', [660]],
      ['1 < 2 < 3', [650]],
      ['"a" ?? "b"', [651]],
      ['abort 1', [113]],
      ['.a.', [203]],
      ['"\\q"', [209]],
      ["r'['", [101]],
      ["t'nope'", [601]],
      ['array = 1', [205]],
      ['1 | {}', [652]],
      ['x = "s"; x.y = 1', [642]],
    ];
    for (const [src, want] of cases) it(`${src} → E${want.join(', E')}`, () => expect(codes(src)).to.deep.equal(want));
  });

  it('suggests the closest function name, the first by name among equally close ones, whatever the list order', () => {
    const fn = (name: string): FnDef => ({ name, params: [], returns: K.K_NULL, call: () => null });
    const suggestion = (src: string, functions: FnDef[]): string | undefined => {
      try {
        compile(src, { functions });
      } catch (e) {
        if (e instanceof CompileError) return /did you mean "([^"]+)"/.exec(e.message)?.[1];
        throw e;
      }
      return undefined;
    };
    expect(suggestion('qqqb()', [fn('qqqc'), fn('qqqa')])).to.equal('qqqa');
    expect(suggestion('qqqb()', [fn('qqqa'), fn('qqqc')])).to.equal('qqqa');
    expect(suggestion('upcse("a")', [])).to.equal('upcase');
  });

  it('warns about unused expressions (E900)', () => {
    const p = compile('"foo"\nx = "bar"\n_y = 1\n.a = upcase("z")');
    expect(p.warnings.map((w) => w.message)).to.deep.equal(['unused literal `"foo"`', 'unused variable `x`']);
  });

  it('progressive typing makes a call infallible after the type is known', () => {
    expect(codes('.a = "x"; upcase(.a)')).to.deep.equal([]);
    expect(codes('.a = to_string(.b) ?? ""; upcase(.a)')).to.deep.equal([]);
  });

  it('renders diagnostics in VRL layout', () => {
    try {
      compile('\n1 / 0');
      expect.fail('should not compile');
    } catch (e) {
      expect((e as Error).message).to.equal(
        [
          'error[E100]: unhandled error',
          '  ┌─ :2:1',
          '  │',
          '2 │ 1 / 0',
          '  │ ^^^^^',
          '  │ │',
          '  │ expression can result in runtime error',
          '  │ handle the error case to ensure runtime success',
          '  │',
          '  = see documentation about error handling at https://errors.vrl.dev/#handling',
          '  = learn more about error code 100 at https://errors.vrl.dev/100',
          '  = see language documentation at https://vrl.dev',
          '  = try your code in the VRL REPL, learn more at https://vrl.dev/examples',
        ].join('\n'),
      );
    }
  });
});

describe('remap byte strings', () => {
  it('round-trips binary data through codecs', () => {
    const r = compile('encode_base64(decode_base64!("/wCAgQ=="))').run({}, {});
    expect(r.ok && r.value).to.equal('/wCAgQ==');
    const g = compile('decode_gzip!(encode_gzip("hello"))').run({}, {});
    expect(g.ok && g.value).to.equal('hello');
    const l = compile('length(decode_base64!("/wCAgQ=="))').run({}, {});
    expect(l.ok && l.value).to.equal(4);
  });
});
