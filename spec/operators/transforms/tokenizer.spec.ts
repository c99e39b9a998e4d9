import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { type EventBatch, LogEvent, logEvent } from '../../../lib/event.js';
import { Float, Timestamp, type ObjectValue, toJSON } from '../../../lib/value.js';
import { type TokenizeOptions, compileConversion, splitTokens, tokenize } from '../../../operators/transforms/tokenizer/index.js';

async function run(options: TokenizeOptions, fields: ObjectValue): Promise<ObjectValue> {
  const out = await lastValueFrom(of<EventBatch>([logEvent(fields)]).pipe(tokenize(options), toArray()));
  expect(out).to.have.length(1);
  return (out[0]![0] as LogEvent).fields;
}

describe('operators/transforms/tokenizer', () => {
  describe('splitTokens', () => {
    const cases: [string, (string | null)[]][] = [
      ['', []],
      ['   ', []],
      ['foo', ['foo']],
      ['foo  \t bar', ['foo', 'bar']],
      ['foo "bar baz"', ['foo', 'bar baz']],
      ['[a = b] c', ['a = b', 'c']],
      ['foo "bar', ['foo', '"bar']],
      ['foo bar[baz]: q', ['foo', 'bar', 'baz', ':', 'q']],
      ['x[][x', ['x', '', '[x']],
      ['f"g h', ['f', '"g h']],
      ['f] g', ['f]', 'g']],
      ['""', ['']],
      ['a\nb c', ['a\nb', 'c']],
      ['- " " "-" [-] x', [null, null, null, null, 'x']],
      ['-- a-b', ['--', 'a-b']],
      ['"a \\" b"', ['a " b']],
      ['[a \\] b]', ['a ] b']],
      ['"back\\\\slash"', ['back\\slash']],
      ['plain\\"quote', ['plain"quote']],
      ['C:\\dir\\file', ['C:\\dir\\file']],
      ['"unterminated \\"', ['"unterminated \\"']],
      ['a "b c" [d e] f', ['a', 'b c', 'd e', 'f']],
    ];
    for (const [text, want] of cases) {
      it(`${JSON.stringify(text)} -> ${JSON.stringify(want)}`, () => {
        expect(splitTokens(text)).to.deep.equal(want);
      });
    }
    it('stops after the requested number of tokens', () => {
      expect(splitTokens('a b c d', 2)).to.deep.equal(['a', 'b']);
    });
  });

  describe('tokenize', () => {
    const apache = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326';
    const cases: [string, TokenizeOptions, ObjectValue, unknown][] = [
      ['assigns tokens in order and drops the field by default', { fieldNames: ['a', 'b'] }, { message: 'x y' }, { a: 'x', b: 'y' }],
      ['keeps the field with drop_field false', { fieldNames: ['a'], dropField: false }, { message: 'x' }, { message: 'x', a: 'x' }],
      ['ignores extra tokens', { fieldNames: ['a'] }, { message: 'x y z' }, { a: 'x' }],
      ['leaves names without a token unset', { fieldNames: ['a', 'b', 'c'] }, { message: 'x' }, { a: 'x' }],
      ['writes nested fields for dotted names', { fieldNames: ['http.method', 'http.path'] }, { message: 'GET /' }, { http: { method: 'GET', path: '/' } }],
      ['reads a nested source field', { field: 'raw.line', fieldNames: ['a'] }, { raw: { line: 'v' }, keep: 1 }, { raw: {}, keep: 1, a: 'v' }],
      ['overwrites the source field when a token targets it', { fieldNames: ['message', 'b'] }, { message: 'x y' }, { message: 'x', b: 'y' }],
      ['sets null for "-"', { fieldNames: ['a', 'b', 'c'] }, { message: 'x - z' }, { a: 'x', b: null, c: 'z' }],
      ['sets null for a quoted lone space', { fieldNames: ['a', 'b'] }, { message: '" " y' }, { a: null, b: 'y' }],
      ['keeps an empty quoted token as an empty string', { fieldNames: ['a', 'b'] }, { message: '"" y' }, { a: '', b: 'y' }],
      ['stringifies a non-string source field', { fieldNames: ['a'] }, { message: 42 }, { a: '42' }],
      ['passes an event without the field unchanged', { fieldNames: ['a'] }, { other: 'x' }, { other: 'x' }],
      ['an empty field yields no tokens', { fieldNames: ['a'] }, { message: '' }, {}],
      [
        'parses an apache common log line',
        { fieldNames: ['ip', 'ident', 'user', 'ts', 'req', 'status', 'bytes'], types: { status: 'int', bytes: 'int', ts: 'timestamp|%d/%b/%Y:%T %z' } },
        { message: apache },
        { ip: '127.0.0.1', ident: null, user: 'frank', ts: '2000-10-10T20:55:36Z', req: 'GET /apache_pb.gif HTTP/1.0', status: 200, bytes: 2326 },
      ],
      ['int', { fieldNames: ['n'], types: { n: 'int' } }, { message: '-17' }, { n: -17 }],
      ['integer alias', { fieldNames: ['n'], types: { n: 'integer' } }, { message: '+5' }, { n: 5 }],
      ['int failure leaves the field unset', { fieldNames: ['n', 'm'], types: { n: 'int' } }, { message: '1.5 ok' }, { m: 'ok' }],
      ['int out of 64-bit range fails', { fieldNames: ['n'], types: { n: 'int' } }, { message: '9223372036854775808' }, {}],
      ['float', { fieldNames: ['f'], types: { f: 'float' } }, { message: '1.25' }, { f: 1.25 }],
      ['float exponent', { fieldNames: ['f'], types: { f: 'float' } }, { message: '1e3' }, { f: 1000 }],
      ['float NaN is rejected', { fieldNames: ['f'], types: { f: 'float' } }, { message: 'NaN' }, {}],
      ['bool words', { fieldNames: ['a', 'b', 'c', 'd'], types: { a: 'bool', b: 'bool', c: 'boolean', d: 'bool' } }, { message: 'yes F TRUE n' }, { a: true, b: false, c: true, d: false }],
      ['bool from integers', { fieldNames: ['a', 'b'], types: { a: 'bool', b: 'bool' } }, { message: '0 -3' }, { a: false, b: true }],
      ['bool failure', { fieldNames: ['a'], types: { a: 'bool' } }, { message: 'maybe' }, {}],
      ['bytes keeps the text', { fieldNames: ['a'], types: { a: 'bytes' } }, { message: '007' }, { a: '007' }],
      ['array from JSON', { fieldNames: ['a'], types: { a: 'array' } }, { message: '"[1,\\"x\\"]"' }, { a: [1, 'x'] }],
      ['array rejects a non-array', { fieldNames: ['a'], types: { a: 'array' } }, { message: '"{}"' }, {}],
      ['map from JSON', { fieldNames: ['a'], types: { a: 'map' } }, { message: '"{\\"k\\": 2}"' }, { a: { k: 2 } }],
      ['map rejects an array', { fieldNames: ['a'], types: { a: 'map' } }, { message: '[1]' }, {}],
      ['null discards the token', { fieldNames: ['a', 'b'], types: { a: 'null' } }, { message: 'x y' }, { a: null, b: 'y' }],
      ['a null token is not converted', { fieldNames: ['a'], types: { a: 'int' } }, { message: '-' }, { a: null }],
      ['types address dotted names', { fieldNames: ['x.n'], types: { '.x.n': 'int' } }, { message: '3' }, { x: { n: 3 } }],
      ['timestamp|%F %T in UTC', { fieldNames: ['t'], types: { t: 'timestamp|%F %T' } }, { message: '"2019-11-29 13:22:11"' }, { t: '2019-11-29T13:22:11Z' }],
      ['timestamp|%F %T in the configured zone', { fieldNames: ['t'], types: { t: 'timestamp|%F %T' }, timezone: 'Europe/Berlin' }, { message: '"2019-11-29 13:22:11"' }, { t: '2019-11-29T12:22:11Z' }],
      ['timestamp|%v %T', { fieldNames: ['t'], types: { t: 'timestamp|%v %T' } }, { message: '"29-Nov-2019 13:22:11"' }, { t: '2019-11-29T13:22:11Z' }],
      ['timestamp|%FT%T', { fieldNames: ['t'], types: { t: 'timestamp|%FT%T' }, timezone: 'America/New_York' }, { message: '2019-11-29T13:22:11' }, { t: '2019-11-29T18:22:11Z' }],
      ['timestamp|%a, %d %b %Y %T', { fieldNames: ['t'], types: { t: 'timestamp|%a, %d %b %Y %T' } }, { message: '"Fri, 29 Nov 2019 13:22:11"' }, { t: '2019-11-29T13:22:11Z' }],
      ['timestamp|%a %d %b %T %Y', { fieldNames: ['t'], types: { t: 'timestamp|%a %d %b %T %Y' } }, { message: '[Fri 29 Nov 13:22:11 2019]' }, { t: '2019-11-29T13:22:11Z' }],
      ['timestamp|%a %b %e %T %Y', { fieldNames: ['t'], types: { t: 'timestamp|%a %b %e %T %Y' } }, { message: '[Fri Nov  1 13:22:11 2019]' }, { t: '2019-11-01T13:22:11Z' }],
      ['timestamp|%s', { fieldNames: ['t'], types: { t: 'timestamp|%s' }, timezone: 'Asia/Tokyo' }, { message: '1575033731' }, { t: '2019-11-29T13:22:11Z' }],
      ['timestamp|%FT%TZ', { fieldNames: ['t'], types: { t: 'timestamp|%FT%TZ' }, timezone: 'Asia/Tokyo' }, { message: '2019-11-29T13:22:11Z' }, { t: '2019-11-29T13:22:11Z' }],
      ['timestamp|%+ ignores the configured zone', { fieldNames: ['t'], types: { t: 'timestamp|%+' }, timezone: 'Asia/Tokyo' }, { message: '2019-11-29T13:22:11.5+01:00' }, { t: '2019-11-29T12:22:11.500Z' }],
      ['timestamp|%a %d %b %T %Z %Y', { fieldNames: ['t'], types: { t: 'timestamp|%a %d %b %T %Z %Y' } }, { message: '[Fri 29 Nov 13:22:11 EST 2019]' }, { t: '2019-11-29T18:22:11Z' }],
      ['timestamp|%a %d %b %T %z %Y', { fieldNames: ['t'], types: { t: 'timestamp|%a %d %b %T %z %Y' } }, { message: '[Fri 29 Nov 13:22:11 +0100 2019]' }, { t: '2019-11-29T12:22:11Z' }],
      ['timestamp|%a %d %b %T %#z %Y', { fieldNames: ['t'], types: { t: 'timestamp|%a %d %b %T %#z %Y' } }, { message: '[Fri 29 Nov 13:22:11 +01 2019]' }, { t: '2019-11-29T12:22:11Z' }],
      ['timestamp with an arbitrary format', { fieldNames: ['t'], types: { t: 'timestamp|%Y%m%d-%H%M%S%.3f' } }, { message: '20191129-132211.042' }, { t: '2019-11-29T13:22:11.042Z' }],
      ['timestamp failure leaves the field unset', { fieldNames: ['t', 'x'], types: { t: 'timestamp|%F %T' } }, { message: 'yesterday x' }, { x: 'x' }],
      ['bare timestamp: naive format in zone', { fieldNames: ['t'], types: { t: 'timestamp' }, timezone: 'Europe/Berlin' }, { message: '"2019-11-29 13:22:11"' }, { t: '2019-11-29T12:22:11Z' }],
      ['bare timestamp: %m/%d/%Y:%T', { fieldNames: ['t'], types: { t: 'timestamp' } }, { message: '11/29/2019:13:22:11' }, { t: '2019-11-29T13:22:11Z' }],
      ['bare timestamp: epoch seconds', { fieldNames: ['t'], types: { t: 'timestamp' }, timezone: 'Europe/Berlin' }, { message: '1575033731' }, { t: '2019-11-29T13:22:11Z' }],
      ['bare timestamp: RFC 3339 with offset', { fieldNames: ['t'], types: { t: 'timestamp' } }, { message: '2019-11-29T13:22:11.123456-02:00' }, { t: '2019-11-29T15:22:11.123456Z' }],
      ['bare timestamp: RFC 2822', { fieldNames: ['t'], types: { t: 'timestamp' } }, { message: '"Fri, 29 Nov 2019 13:22:11 +0200"' }, { t: '2019-11-29T11:22:11Z' }],
      ['bare timestamp: apache', { fieldNames: ['t'], types: { t: 'timestamp' } }, { message: '[29/Nov/2019:13:22:11 -0700]' }, { t: '2019-11-29T20:22:11Z' }],
      ['bare timestamp: nothing matches', { fieldNames: ['t'], types: { t: 'timestamp' } }, { message: 'soon' }, {}],
    ];
    for (const [name, options, input, want] of cases) {
      it(name, async () => {
        const got = await run(options, input);
        expect(toJSON(got)).to.deep.equal(want);
      });
    }

    it('keeps the kinds: int stays integer, float is boxed, timestamp is a Timestamp', async () => {
      const got = await run({ fieldNames: ['i', 'f', 't'], types: { i: 'int', f: 'float', t: 'timestamp|%s' } }, { message: '2 2 5' });
      expect(got.i).to.equal(2);
      expect(got.f).to.be.instanceOf(Float);
      expect((got.f as Float).value).to.equal(2);
      expect(got.t).to.be.instanceOf(Timestamp);
    });
    it('reports missing fields and failed conversions through the hooks', async () => {
      const seen: string[] = [];
      const events = { fieldMissing: (f: string) => seen.push(`missing ${f}`), conversionFailed: (f: string) => seen.push(`failed ${f}`) };
      const op = tokenize({ fieldNames: ['a', 'b'], types: { b: 'int' }, events });
      await lastValueFrom(of<EventBatch>([logEvent({ other: 1 }), logEvent({ message: 'x y' }), logEvent({ message: 'x 1' })]).pipe(op));
      expect(seen).to.deep.equal(['missing message', 'failed b']);
    });
    it('emits one event per input, in order, and passes metrics through', async () => {
      const batch = [logEvent({ message: 'a' }), logEvent({ message: 'b' })];
      const out = await lastValueFrom(of<EventBatch>(batch).pipe(tokenize({ fieldNames: ['x'] })));
      expect(out.map((e) => (e as LogEvent).fields.x)).to.deep.equal(['a', 'b']);
    });
    it('rejects unknown types, bad formats and zones at compile time', () => {
      expect(() => compileConversion('uuid', undefined)).to.throw(/unknown conversion name/);
      expect(() => compileConversion('int|x', undefined)).to.throw(/only timestamp takes a format/);
      expect(() => compileConversion('timestamp|%Q', undefined)).to.throw(/unsupported specifier/);
      expect(() => compileConversion('timestamp', 'Mars/Base')).to.throw(/unknown time zone/);
      expect(() => tokenize({ fieldNames: ['a..b'] })).to.throw(/invalid path/);
    });
  });
});
