import { expect } from 'chai';
import * as v from 'valibot';
import { EncodedLogEvent, EventMetadata, LogEvent, MetricEvent } from '../../../lib/event.js';
import { mapIssue } from '../../../lib/config/issues.js';
import { EncodeError, createBatchEncoder, createSerializer, encodingSchema, metricTagValuesOption } from '../../../lib/codecs/index.js';
import { Float, type ObjectValue, Timestamp } from '../../../lib/value.js';

const meta = () => new EventMetadata('in', 'test');
const log = (fields: ObjectValue) => new LogEvent(fields, meta());
const TS = new Timestamp(Date.UTC(2024, 4, 1, 10, 0, 0), 123_456);
const counter = () => new MetricEvent('hits', 'incremental', { type: 'counter', value: 3 }, meta(), 'app', { env: 'prod', az: 'a' }, TS);

describe('lib/codecs encoding', () => {
  describe('serializers', () => {
    const e = () => log({ message: 'hi there', host: 'h1', n: 1, f: new Float(1.5), ok: true, no: false, timestamp: TS, nested: { a: [1, 'x'] } });
    const table: [string, Parameters<typeof createSerializer>[0], string][] = [
      ['json', { codec: 'json' }, '{"message":"hi there","host":"h1","n":1,"f":1.5,"ok":true,"no":false,"timestamp":"2024-05-01T10:00:00.000123456Z","nested":{"a":[1,"x"]}}'],
      ['json unix', { codec: 'json', timestamp_format: 'unix', only_fields: ['timestamp'] }, '{"timestamp":1714557600}'],
      ['json unix_ms', { codec: 'json', timestamp_format: 'unix_ms', only_fields: ['timestamp'] }, '{"timestamp":1714557600000}'],
      ['json unix_ns keeps every digit', { codec: 'json', timestamp_format: 'unix_ns', only_fields: ['timestamp'] }, '{"timestamp":1714557600000123456}'],
      ['json unix_float', { codec: 'json', timestamp_format: 'unix_float', only_fields: ['timestamp'] }, '{"timestamp":1714557600.0001235}'],
      ['ndjson is one object per event', { codec: 'ndjson', only_fields: ['n'] }, '{"n":1}'],
      ['only_fields by path, in list order', { codec: 'json', only_fields: ['nested.a[1]', 'host'] }, '{"nested":{"a":[null,"x"]},"host":"h1"}'],
      ['except_fields by path', { codec: 'json', except_fields: ['nested.a', 'timestamp', 'f', 'ok', 'no', 'n'] }, '{"message":"hi there","host":"h1","nested":{}}'],
      ['text is the message', { codec: 'text' }, 'hi there'],
      ['raw_message is the message', { codec: 'raw_message' }, 'hi there'],
      [
        'logfmt: sorted, flattened, bare true, no false, quoted spaces',
        { codec: 'logfmt' },
        'f=1.5 host=h1 message="hi there" n=1 nested.a.0=1 nested.a.1=x ok timestamp=2024-05-01T10:00:00.000123456Z',
      ],
      ['native_json wraps logs', { codec: 'native_json', only_fields: ['n'] }, '{"log":{"n":1}}'],
    ];
    for (const [name, cfg, expected] of table) {
      it(name, () => {
        expect(createSerializer(cfg).serializeText(e())).to.equal(expected);
      });
    }

    it('never changes the event while filtering', () => {
      const ev = e();
      const before = JSON.stringify(ev.fields);
      createSerializer({ codec: 'json', except_fields: ['nested.a[0]', 'host'] }).serialize(ev);
      createSerializer({ codec: 'json', only_fields: ['nested'] }).serialize(ev);
      expect(JSON.stringify(ev.fields)).to.equal(before);
    });

    it('text of a metric is its one-line form; json its Vector JSON', () => {
      expect(createSerializer({ codec: 'text' }).serializeText(counter())).to.equal('2024-05-01T10:00:00.000123456Z app_hits{az="a",env="prod"} + 3');
      expect(JSON.parse(createSerializer({ codec: 'json' }).serializeText(counter()))).to.deep.equal({
        name: 'hits',
        namespace: 'app',
        tags: { env: 'prod', az: 'a' },
        timestamp: '2024-05-01T10:00:00.000123456Z',
        kind: 'incremental',
        counter: { value: 3 },
      });
      expect(createSerializer({ codec: 'native_json' }).serializeText(counter())).to.match(/^\{"metric":\{"name":"hits"/);
    });

    it('metric tags: single keeps the last non-null value and drops bare tags; full gives arrays', () => {
      const m = new MetricEvent('up', 'absolute', { type: 'gauge', value: 1 }, meta(), undefined, { a: ['x', 'y', null], b: null, c: 'z' });
      expect(JSON.parse(createSerializer({ codec: 'json' }).serializeText(m)).tags).to.deep.equal({ a: 'y', c: 'z' });
      expect(JSON.parse(createSerializer({ codec: 'json', metric_tag_values: 'full' }).serializeText(m)).tags).to.deep.equal({ a: ['x', 'y', null], b: [null], c: ['z'] });
      const bare = new MetricEvent('up', 'absolute', { type: 'gauge', value: 1 }, meta(), undefined, { b: null });
      expect(JSON.parse(createSerializer({ codec: 'json' }).serializeText(bare))).to.not.have.property('tags');
    });

    it('logfmt quotes and escapes', () => {
      const s = createSerializer({ codec: 'logfmt' }).serializeText(log({ a: 'x=y', b: 'say "hi"', c: '', d: null }));
      expect(s).to.equal('a="x=y" b="say \\"hi\\"" c= d=null');
    });

    it('the text codec uses the log schema message key', () => {
      const s = createSerializer({ codec: 'text' }, { message_key: 'msg', host_key: 'host', timestamp_key: 'timestamp', source_type_key: 'source_type' });
      expect(s.serializeText(log({ msg: 'here', message: 'not' }))).to.equal('here');
      expect(s.serializeText(log({ other: 1 }))).to.equal('');
      expect(s.serialize(log({ msg: 'é' }))).to.deep.equal(Buffer.from('é'));
    });

    describe('gelf', () => {
      const gelf = createSerializer({ codec: 'gelf' });
      it('renames host and message, prefixes additional fields, timestamp in seconds', () => {
        const out = JSON.parse(gelf.serializeText(log({ message: 'm', host: 'h', timestamp: new Timestamp(1714557600500), level: 3, app: 'x', _kept: 1 })));
        expect(out).to.deep.equal({ version: '1.1', host: 'h', short_message: 'm', timestamp: 1714557600.5, level: 3, _app: 'x', _kept: 1 });
        expect(JSON.parse(gelf.serializeText(log({ message: 'm', host: 'h', timestamp: new Timestamp(1714557600000) }))).timestamp).to.equal(1714557600);
        expect(gelf.contentType).to.equal('application/json');
      });
      const bad: [string, ObjectValue, RegExp][] = [
        ['missing host', { message: 'm' }, /"host"/],
        ['missing message', { host: 'h' }, /short_message/],
        ['non-string host', { message: 'm', host: 1 }, /"host" must be a string/],
        ['object additional field', { message: 'm', host: 'h', o: { a: 1 } }, /"o" must be a string or a number/],
        ['bad field name', { message: 'm', host: 'h', 'a b': 1 }, /field name "a b"/],
        ['float level', { message: 'm', host: 'h', level: new Float(1.5) }, /"level" must be an integer/],
      ];
      for (const [name, fields, re] of bad) {
        it(`rejects ${name}`, () => {
          expect(() => gelf.serializeText(log(fields))).to.throw(EncodeError, re);
        });
      }
    });
  });

  describe('createBatchEncoder', () => {
    it('frames the encoded events and sets the rejected ones apart', () => {
      const enc = createBatchEncoder({ codec: 'gelf' }, {});
      const good = log({ message: 'a', host: 'h' });
      const bad = log({ message: 'b' });
      const r = enc.encode([good, bad, good]);
      expect(r.bytes.toString()).to.equal('{"version":"1.1","short_message":"a","host":"h"}\0{"version":"1.1","short_message":"a","host":"h"}\0');
      expect(r.encoded).to.deep.equal([good, good]);
      expect(r.failed).to.deep.equal([bad]);
      expect(r.reason).to.match(/host/);
    });
    it('encodeEach frames events one by one', () => {
      const r = createBatchEncoder({ codec: 'text' }, { method: 'bytes' }).encodeEach([log({ message: 'a' }), log({ message: 'b' })]);
      expect(r.frames.map(String)).to.deep.equal(['a', 'b']);
    });
    it('reuseBytes: each encode writes into the same buffer, encodeEach still gives each frame its own', () => {
      const enc = createBatchEncoder({ codec: 'text' }, { method: 'newline_delimited' }, undefined, true);
      const first = enc.encode([log({ message: 'one' }), log({ message: 'two' })]).bytes;
      expect(first.toString()).to.equal('one\ntwo\n');
      const second = enc.encode([log({ message: 'three' })]).bytes;
      expect(second.toString()).to.equal('three\n');
      expect(second.buffer, 'the same memory').to.equal(first.buffer);
      const r = enc.encodeEach([log({ message: 'a' }), log({ message: 'b' })]);
      expect(r.frames.map(String)).to.deep.equal(['a\n', 'b\n']);
    });
  });

  describe('encodingSchema', () => {
    const schema = encodingSchema(['json', 'text']);
    const messages = (x: unknown) => (v.safeParse(schema, x).issues ?? []).flatMap((i) => mapIssue(schema, i)).map((m) => `${m.path}: ${m.message}`);
    it('defaults timestamp_format and requires codec', () => {
      expect(v.parse(schema, { codec: 'json' })).to.deep.equal({ codec: 'json', timestamp_format: 'rfc3339' });
      expect(messages({})).to.deep.equal(['codec: missing required option']);
    });
    it('a bad codec names the option and the allowed values', () => {
      expect(messages({ codec: 'xml' })).to.deep.equal(['codec: must be one of "json", "text"; got "xml"']);
    });
    it('a codec another component allows is still refused here', () => {
      expect(messages({ codec: 'gelf' })[0]).to.contain('"json", "text"');
    });
    it('unknown options are listed with the allowed ones', () => {
      expect(messages({ codec: 'json', pretty: true })[0]).to.match(/^pretty: unknown option; allowed options: codec, only_fields, except_fields, timestamp_format/);
    });
    it('a bad timestamp_format lists the formats', () => {
      expect(messages({ codec: 'json', timestamp_format: 'iso' })[0]).to.contain('"unix_ms"');
    });
    it('rejects invalid paths and overlapping only/except fields', () => {
      expect(messages({ codec: 'json', only_fields: ['a..b'] })[0]).to.match(/only_fields\[0\]: each only_fields entry must be a field path/);
      expect(messages({ codec: 'json', only_fields: ['a'], except_fields: ['a'] })).to.deep.equal(['except_fields: only_fields and except_fields must not name the same field (a)']);
    });
    it('metric_tag_values is offered through the extras', () => {
      const s = encodingSchema(['json', 'text'], metricTagValuesOption);
      expect(v.parse(s, { codec: 'json' })).to.deep.include({ metric_tag_values: 'single' });
      expect(messages({ codec: 'json', metric_tag_values: 'full' })[0]).to.match(/^metric_tag_values: unknown option/);
    });

    it('takes a default codec and extra options', () => {
      const s = encodingSchema(['json', 'text'], { pretty: v.optional(v.boolean(), false) }, 'text');
      expect(v.parse(s, {})).to.deep.include({ codec: 'text', pretty: false });
    });
  });

  describe("pipeline workers' records in a batch (docs/threads.md)", () => {
    const answer = Buffer.from('{"a":1}\n{"a":2}\n{"a":3}');
    const records = () => [new EncodedLogEvent(meta(), answer, 0, 7, 20), new EncodedLogEvent(meta(), answer, 8, 15, 20), new EncodedLogEvent(meta(), answer, 16, 23, 20)];

    it('writes runs of records as they are under a delimited framing, and frames them by length otherwise', () => {
      expect(createBatchEncoder({ codec: 'json' }, {}).encode(records()).bytes.toString()).to.equal('{"a":1}\n{"a":2}\n{"a":3}\n');
      expect(createBatchEncoder({ codec: 'json' }, { method: 'character_delimited', character_delimited: { delimiter: '|' } }).encode(records()).bytes.toString()).to.equal('{"a":1}|{"a":2}|{"a":3}|');
      const framed = createBatchEncoder({ codec: 'json' }, { method: 'length_delimited' }).encode(records()).bytes;
      expect(framed.readUInt32BE(0)).to.equal(7);
      expect(framed.length).to.equal(3 * 11);
    });

    it('keeps a record beside events encoded here (after a reload to the binary codec), never dropping it', () => {
      const enc = createBatchEncoder({ codec: 'native' }, {});
      const [record] = records();
      const out = enc.encode([record!, log({ message: 'x' })]);
      expect(out.encoded).to.have.length(2);
      expect(out.bytes.includes(Buffer.from('{"a":1}'))).to.equal(true);
    });
  });
});

