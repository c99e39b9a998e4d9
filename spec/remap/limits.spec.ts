/**
 * Limits of the remap language besides regexes (docs/limits.md): decompression stops at the cap,
 * inferred types stop growing, parse_json nesting past serde_json's limit is an error, and deep
 * JSON kinds print. Each case below exhausted memory, crashed or ran for seconds before.
 */
import { expect } from 'chai';
import { gzipSync, deflateSync } from 'node:zlib';
import type { Value } from '../../lib/value.js';
import { compile } from '../../remap/index.js';
import { MAX_KIND_DEPTH, MAX_KIND_SIZE } from '../../remap/kind.js';
import { fromBytes } from '../../remap/stdlib/bytes.js';
import { MAX_DECODED_BYTES } from '../../remap/stdlib/encoding-compression.js';

const MiB = 1024 * 1024;

function run(source: string, event: Value, options: Parameters<typeof compile>[1] = {}): Value {
  const r = compile(source, options).run(event);
  return r.ok ? r.value : `error: ${r.error}`;
}

describe('remap limits', () => {
  describe('decode_gzip and decode_zlib stop at the decompression cap', () => {
    // 64 MiB of zeros: about 64 KiB compressed
    const zeros = Buffer.alloc(64 * MiB);
    const gzipBomb = fromBytes(gzipSync(zeros, { level: 9 }));
    const zlibBomb = fromBytes(deflateSync(zeros, { level: 9 }));

    it('a 64 MiB gzip bomb fails the call past a 1 MiB cap, without inflating it all', () => {
      expect(gzipBomb.length).to.be.below(100 * 1024);
      const before = process.memoryUsage().rss;
      const err = run('x, err = decode_gzip(string!(.data)); err', { data: gzipBomb }, { maxDecompressedBytes: MiB });
      expect(err).to.equal(`function call error for "decode_gzip" at (9:36): unable to decode value with gzip decoder: decoded data exceeds the limit of ${MiB} bytes`);
      // the output stops within one zlib chunk of the cap: nowhere near the 64 MiB the bomb holds
      expect(process.memoryUsage().rss - before).to.be.below(32 * MiB);
    });

    it('decode_zlib the same', () => {
      expect(run('decode_zlib(string!(.data)) ?? "refused"', { data: zlibBomb }, { maxDecompressedBytes: MiB })).to.equal('refused');
    });

    it('output up to the cap decodes; a lower global max_decompressed_bytes lowers the cap', () => {
      const small = fromBytes(gzipSync(Buffer.alloc(MiB, 0x61)));
      expect(run('length(decode_gzip!(string!(.data)))', { data: small }, { maxDecompressedBytes: MiB })).to.equal(MiB);
      expect(run('length(decode_gzip!(string!(.data)))', { data: small })).to.equal(MiB);
      expect(run('decode_gzip(string!(.data)) ?? "refused"', { data: small }, { maxDecompressedBytes: MiB - 1 })).to.equal('refused');
    });

    it('without a cap of its own, and with the global default (100 MiB) the remap transform passes, the 64 MiB bomb fails at 16 MiB', () => {
      expect(MAX_DECODED_BYTES).to.equal(16 * MiB);
      const limit = `decoded data exceeds the limit of ${16 * MiB} bytes`;
      for (const options of [{}, { maxDecompressedBytes: 100 * MiB }]) {
        const before = process.memoryUsage().rss;
        expect(run('x, err = decode_gzip(string!(.data)); err', { data: gzipBomb }, options)).to.equal(`function call error for "decode_gzip" at (9:36): unable to decode value with gzip decoder: ${limit}`);
        expect(run('x, err = decode_zlib(string!(.data)); err', { data: zlibBomb }, options)).to.equal(`function call error for "decode_zlib" at (9:36): unable to decode value with zlib decoder: ${limit}`);
        // inflating the whole bomb holds 64 MiB of bytes and a 64 MiB string; the cap holds one chunk past 16 MiB
        expect(process.memoryUsage().rss - before).to.be.below(64 * MiB);
      }
      // the error is one the program handles: the event goes on
      expect(run('.x = decode_gzip(string!(.data)) ?? "too large"; .x', { data: gzipBomb })).to.equal('too large');
    });

    it('a 1 MiB bomb under the cap decodes to exactly its bytes; output of exactly 16 MiB decodes, one byte more fails', () => {
      const zeros = Buffer.alloc(MiB);
      const decoded = run('decode_gzip!(string!(.data))', { data: fromBytes(gzipSync(zeros, { level: 9 })) });
      expect(decoded === fromBytes(zeros), 'decoded 1 MiB of zeros').to.equal(true);
      const inflated = run('decode_zlib!(string!(.data))', { data: fromBytes(deflateSync(zeros, { level: 9 })) });
      expect(inflated === fromBytes(zeros), 'inflated 1 MiB of zeros').to.equal(true);
      const atCap = fromBytes(gzipSync(Buffer.alloc(16 * MiB, 0x61), { level: 9 }));
      expect(run('length(decode_gzip!(string!(.data)))', { data: atCap })).to.equal(16 * MiB);
      const overCap = fromBytes(gzipSync(Buffer.alloc(16 * MiB + 1, 0x61), { level: 9 }));
      expect(run('decode_gzip(string!(.data)) ?? "refused"', { data: overCap })).to.equal('refused');
    });

    it('corrupt input keeps its error', () => {
      expect(run('x, err = decode_gzip("not gzip"); err', {})).to.match(/unable to decode value with gzip decoder: incorrect header check/);
    });
  });

  describe('inferred types stay bounded', () => {
    const appends = (n: number) => 'a = [1]\n' + 'a = append(a, a)\n'.repeat(n) + 'type_def(a)';

    for (const n of [20, 27, 40]) {
      it(`${n} lines of a = append(a, a) compile with bounded memory`, () => {
        const before = process.memoryUsage().heapUsed;
        const program = compile(appends(n));
        expect(process.memoryUsage().heapUsed - before).to.be.below(64 * MiB);
        expect(program.kind.size).to.be.at.most(MAX_KIND_SIZE);
      });
    }

    it('a collapsed array keeps its item kind; small kinds stay exact', () => {
      const r = compile(appends(20)).run({});
      expect(r.ok && r.value).to.deep.equal({ array: {}, array_unknown_infinite: { integer: true, undefined: true } });
      expect(run('type_def(append([1], ["a"]))', {})).to.deep.equal({ array: { 0: { integer: true }, 1: { bytes: true } } });
    });

    it('nesting past the depth limit collapses to any contents', () => {
      const program = compile('x = [1]\n' + 'x = [x]\n'.repeat(300) + 'x');
      expect(program.kind.depth).to.be.at.most(MAX_KIND_DEPTH);
    });

    it('objects doubling per line compile too', () => {
      const program = compile('x = {"a": 1}\n' + 'x = {"l": x, "r": x}\n'.repeat(60) + 'x');
      expect(program.kind.size).to.be.at.most(MAX_KIND_SIZE);
    });

    it('at run time, append refuses an array past 2^24 items instead of letting V8 end the process', () => {
      const r = compile('a = [1]\n' + 'a = append(a, a)\n'.repeat(27) + 'length(a)').run({});
      expect(r.ok).to.equal(false);
      expect(!r.ok && r.error).to.include("can't append: the array would have more than 16777216 items");
    });

    it('type_def of a failed parse_json result prints { json: true } (it overflowed the stack)', () => {
      expect(run('x, err = parse_json("abc"); type_def(x)', {})).to.deep.equal({ json: true });
    });
  });

  describe('parse_json nesting', () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

    it('127 levels parse; the 128th is serde_json\'s recursion limit, an error as in VRL', () => {
      expect(run('x = parse_json!(string!(.s)); is_array(x)', { s: nested(127) })).to.equal(true);
      expect(run('x, err = parse_json(string!(.s)); err', { s: nested(128) })).to.equal(
        'function call error for "parse_json" at (9:32): unable to parse json: recursion limit exceeded at line 1 column 128',
      );
      expect(run('parse_json(string!(.s)) ?? "refused"', { s: nested(10_000) })).to.equal('refused');
    });

    it('the same for objects, located by line and column', () => {
      const s = '\n  ' + '{"a":'.repeat(200) + '1' + '}'.repeat(200);
      expect(run('x, err = parse_json(string!(.s)); err', { s })).to.match(/recursion limit exceeded at line 2 column 638$/);
    });

    it('max_depth keeps the deeper part as JSON text, however deep', () => {
      expect(run('parse_json!(string!(.s), max_depth: 2)', { s: nested(10_000) })).to.deep.equal([[nested(9_998)]]);
      expect(run('parse_json!(string!(.s), max_depth: 128)', { s: nested(130) })).to.be.an('array');
    });
  });
});
