import { expect } from 'chai';
import { appendFileSync, writeFileSync } from 'node:fs';
import * as v from 'valibot';
import { FileSourceConfig } from '../../../../connectors/sources/file/index.js';
import { Harness } from './harness.js';

const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();

describe('file source: encoding.charset', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  it('utf-16le with a byte order mark: lines cut at the two-byte delimiter, decoded to UTF-8, offsets in file bytes', () => {
    writeFileSync(h.path('w.log'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\nwörld\npart', 'utf16le')]));
    const r = h.start({ encoding: { charset: 'utf-16le' }, offset_key: 'offset', max_read_bytes: 3 });
    h.advance(10);
    expect(r.messages()).to.deep.equal(['héllo', 'wörld']);
    expect(r.events().map((e) => e.fields.offset)).to.deep.equal([0, 14]);
    appendFileSync(h.path('w.log'), Buffer.from('ial\n', 'utf16le'));
    h.advance(300);
    expect(r.messages().at(-1)).to.equal('partial');
  });

  it('utf-16be', () => {
    writeFileSync(h.path('b.log'), utf16be('big endian ☃\nsecond\n'));
    const r = h.start({ encoding: { charset: 'UTF-16BE' } });
    h.advance(10);
    expect(r.messages()).to.deep.equal(['big endian ☃', 'second']);
  });

  it('single-byte and multi-byte legacy charsets: windows-1252 (latin1), shift_jis', () => {
    writeFileSync(h.path('l.log'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x80, 0x93, 0x9d, 0x0a]));
    writeFileSync(h.path('j.log'), Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x0a]));
    const latin = h.start({ include: [h.path('l.log')], encoding: { charset: 'latin1' } });
    const sjis = h.start({ include: [h.path('j.log')], encoding: { charset: 'shift_jis' }, data_dir: `${h.data}/sjis` });
    h.advance(10);
    // 0x80 and 0x93 as the Encoding Standard maps them (not C1 controls); 0x9D has no character
    expect(latin.messages()).to.deep.equal(['café', '€\u201c\u009d']);
    expect(sjis.messages()).to.deep.equal(['日本']);
  });

  it('refuses a charset TextDecoder does not know, and a stateful one', () => {
    const parse = (charset: string) => v.safeParse(FileSourceConfig, { type: 'file', include: ['/x/*.log'], encoding: { charset } });
    expect(parse('klingon').issues?.[0]?.message).to.include('unknown or unsupported charset "klingon"');
    expect(parse('iso-2022-jp').success).to.equal(false);
    expect(parse('utf-16').success).to.equal(true);
  });
});
