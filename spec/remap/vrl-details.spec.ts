/** VRL's exact behaviour in details a Vector user meets: parser error codes, E640, format_number's truncation, serde_json's parse errors. */
import { expect } from 'chai';
import { CompileError, compile } from '../../remap/index.js';

function diagnostics(src: string): { code: number; text: string } {
  try {
    compile(src);
  } catch (e) {
    if (e instanceof CompileError) return { code: e.diagnostics[0]!.code, text: e.message };
    throw e;
  }
  throw new Error(`compiled: ${src}`);
}

const value = (src: string, event = {}): unknown => {
  const r = compile(src).run(event, {});
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

const runError = (src: string): string => {
  const r = compile(src).run({}, {});
  if (r.ok) throw new Error(`no error: ${JSON.stringify(r.value)}`);
  return r.error;
};

describe('remap: VRL details', () => {
  describe('parser error codes', () => {
    it('a program ending where an expression is due is E204 (unexpected end of program)', () => {
      const d = diagnostics('.field1 = 1\n.field2 =');
      expect(d.code).to.equal(204);
      expect(d.text).to.include('error[E204]: syntax error').and.include('unexpected end of program');
      expect(diagnostics('.field2 =\n\n').code).to.equal(204);
      expect(diagnostics('if true {').code).to.equal(204);
    });
    it('a wrong token is still E203', () => {
      expect(diagnostics('.a = )').code).to.equal(203);
    });
    it('an unterminated string is E207 (invalid string literal); raw strings stay E208', () => {
      const d = diagnostics('.a = "abc');
      expect(d.code).to.equal(207);
      expect(d.text).to.include('error[E207]: invalid string literal');
      expect(diagnostics("s'abc").code).to.equal(208);
    });
    it('an integer literal past i64 is E206 (invalid numeric literal)', () => {
      const d = diagnostics('x = 99999999999999999999');
      expect(d.code).to.equal(206);
      expect(d.text).to.include('invalid numeric literal: number too large to fit in target type');
    });
  });

  describe('E640: unnecessary no-op assignment', () => {
    it('`_ = "literal"` is rejected with VRL labels', () => {
      const d = diagnostics('_ = "literal"');
      expect(d.code).to.equal(640);
      expect(d.text).to.include('error[E640]: unnecessary no-op assignment').and.include('this no-op assignment has no effect');
      expect(d.text).to.include('either assign to a path or variable here').and.include('or remove the assignment');
    });
    it('`_, _ = fallible` is rejected too; `_, err = fallible` and `ok, _ = fallible` are fine', () => {
      expect(diagnostics('_, _ = parse_json("x")').code).to.equal(640);
      expect(value('_, err = parse_json("x"); err')).to.include('unable to parse json: expected value at line 1 column 1');
      expect(value('ok, _ = parse_json("1"); ok')).to.equal(1);
    });
    it('a fallible right side still reports E103 first', () => {
      expect(diagnostics('_ = parse_json("x")').code).to.equal(103);
    });
  });

  describe('format_number truncates to the scale', () => {
    const cases: [string, string][] = [
      ['format_number(1234.567, scale: 2, decimal_separator: ",", grouping_separator: ".")', '1.234,56'],
      ['format_number(1234.567, scale: 2)', '1234.56'],
      ['format_number(1234.567, scale: 0)', '1234'],
      ['format_number(1234.999, 2)', '1234.99'],
      ['format_number(-1234.999, 1, grouping_separator: " ")', '-1 234.9'],
      ['format_number(5, scale: 2)', '5.00'],
      ['format_number(1234.567)', '1234.567'],
      ['format_number(100.0)', '100'],
      ['format_number(11222333444.56789, 3, decimal_separator: ",", grouping_separator: ".")', '11.222.333.444,567'],
      ['format_number(1234567.89, 3, decimal_separator: ".", grouping_separator: ",")', '1,234,567.890'],
      ['format_number(4321.09, 3, decimal_separator: "·")', '4321·090'],
    ];
    for (const [src, want] of cases) it(`${src} → ${want}`, () => expect(value(src)).to.equal(want));
    it('small floats print without an exponent', () => {
      expect(value('format_number(to_float!(.x))', { x: '0.0000001' })).to.equal('0.0000001');
    });
  });

  it('zip of no arrays is an empty array', () => {
    expect(value('zip!([])')).to.deep.equal([]);
  });

  describe("parse_json errors are serde_json's", () => {
    const cases: [string, string][] = [
      ['malformed', 'expected value at line 1 column 1'],
      ['nul', 'EOF while parsing a value at line 1 column 3'],
      ['nulx', 'expected ident at line 1 column 4'],
      ['', 'EOF while parsing a value at line 1 column 0'],
      ['{"a":1,}', 'trailing comma at line 1 column 8'],
      ['[1,]', 'trailing comma at line 1 column 4'],
      ['[1 2]', 'expected `,` or `]` at line 1 column 4'],
      ['{"a" 1}', 'expected `:` at line 1 column 6'],
      ['{"a":1 "b":2}', 'expected `,` or `}` at line 1 column 8'],
      ['{1:2}', 'key must be a string at line 1 column 2'],
      ['{', 'EOF while parsing an object at line 1 column 1'],
      ['[', 'EOF while parsing a list at line 1 column 1'],
      ['{"a":1,', 'EOF while parsing a value at line 1 column 7'],
      ['"abc', 'EOF while parsing a string at line 1 column 4'],
      ['"a\\x"', 'invalid escape at line 1 column 4'],
      ['"\\ud800x"', 'unexpected end of hex escape at line 1 column 8'],
      ['"\\udc00"', 'lone leading surrogate in hex escape at line 1 column 7'],
      ['01', 'invalid number at line 1 column 2'],
      ['1.', 'EOF while parsing a value at line 1 column 2'],
      ['1.x', 'invalid number at line 1 column 3'],
      ['-x', 'invalid number at line 1 column 2'],
      ['1e400', 'number out of range at line 1 column 5'],
      ['1 2', 'trailing characters at line 1 column 3'],
      ['"é" x', 'trailing characters at line 1 column 6'],
      ['{\n  "a": 1,\n  x\n}', 'key must be a string at line 3 column 3'],
    ];
    for (const [text, want] of cases)
      it(`${JSON.stringify(text)} → ${want}`, () => {
        expect(runError(`parse_json!(${JSON.stringify(text)})`)).to.include(`unable to parse json: ${want}`);
      });
    it('with max_depth the text is read first: "unable to read json"', () => {
      expect(runError('parse_json!("{\\"a\\": x}", max_depth: 1)')).to.include('unable to read json: expected value at line 1 column 7');
    });
    it('a byte order mark is skipped', () => {
      expect(value('parse_json!(.m)', { m: '\ufeff{"a":1}' })).to.deep.equal({ a: 1 });
    });
    it('valid surrogate pairs still decode', () => {
      expect(value('parse_json!(.m)', { m: '"\\ud83d\\ude00"' })).to.equal('😀');
    });
  });
});
