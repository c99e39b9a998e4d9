import { expect } from 'chai';
import avro from 'avsc';
import * as v from 'valibot';
import { LabelstoreConfig } from '../../../../connectors/sinks/labelstore/config.js';
import { createLabelstoreEncoder } from '../../../../connectors/sinks/labelstore/encoder.js';
import { quoteLabelValue, slugLabelName } from '../../../../connectors/sinks/labelstore/labels.js';
import { readNative } from '../../../../lib/codecs/native-proto.js';
import { type Event, MetricEvent, EventMetadata, logEvent } from '../../../../lib/event.js';
import { TemplateError } from '../../../../lib/template.js';
import { Float, Timestamp, type Value } from '../../../../lib/value.js';
import { parseLabelSet } from '../../../peers/loki-labels.js';
import { at } from './harness.js';

const config = (extra: Record<string, unknown> = {}) =>
  v.parse(LabelstoreConfig, { type: 'labelstore', inputs: ['in'], endpoint: 'http://127.0.0.1:3100', labels: { app: '{{ app }}' }, encoding: { codec: 'json' }, ...extra });

function encoder(extra: Record<string, unknown> = {}, now = 42, logSchema?: Parameters<typeof createLabelstoreEncoder>[3]) {
  let unlabeled = 0;
  const enc = createLabelstoreEncoder(config(extra), () => now, { unlabeled: () => unlabeled++ }, logSchema);
  return { encode: (e: Event) => enc.encode(e), unlabeled: () => unlabeled };
}

const ev = (fields: Record<string, Value>) => logEvent({ message: 'hello', app: 'web', timestamp: at(), ...fields });

describe('connectors/sinks/labelstore: encoder, step by step', () => {
  describe('labels', () => {
    it('renders key and value templates and sorts the pairs by name into the stream text', () => {
      const { encode } = encoder({ labels: { zone: 'eu-{{ dc }}', app: '{{ app }}', '{{ kind }}_id': '{{ id }}' } });
      const e = encode(ev({ dc: '1', kind: 'user', id: 7 }));
      expect(e.stream.text).to.equal('{app="web", user_id="7", zone="eu-1"}');
      expect(e.stream.pairs).to.deep.equal([['app', 'web'], ['user_id', '7'], ['zone', 'eu-1']]);
    });

    it('static labels make one stream object shared by every event', () => {
      const { encode } = encoder({ labels: { b: '2', a: '1' } });
      const x = encode(ev({}));
      expect(x.stream.text).to.equal('{a="1", b="2"}');
      expect(encode(ev({ app: 'other' })).stream).to.equal(x.stream);
    });

    it('skips a label whose key or value does not render, or whose rendered key is not a label name', () => {
      const { encode } = encoder({ labels: { app: '{{ app }}', host: '{{ host }}', '{{ k }}': 'x', '{{ bad }}': 'y' } });
      expect(encode(ev({ bad: 'not.a.name' })).stream.text).to.equal('{app="web"}');
    });

    it('uses agent="weir" when no label renders, and counts it', () => {
      const { encode, unlabeled } = encoder({ labels: { host: '{{ host }}' } });
      expect(encode(ev({})).stream.text).to.equal('{agent="weir"}');
      expect(encode(ev({})).stream.text).to.equal('{agent="weir"}');
      expect(unlabeled()).to.equal(2);
      expect(encode(ev({ host: 'h' })).stream.text).to.equal('{host="h"}');
      expect(unlabeled()).to.equal(2);
    });

    it('expands an object under a `prefix_*` key into slugged labels; values as text, nested objects as JSON', () => {
      const { encode } = encoder({ labels: { app: '{{ app }}', 'pod_labels_*': '{{ kubernetes.pod_labels }}' } });
      const e = encode(ev({ kubernetes: { pod_labels: { 'app.kubernetes.io/name': 'web', Tier: 'Front', replicas: 3, ratio: new Float(0.5), extra: { a: 1 } } } }));
      expect(e.stream.text).to.equal(
        '{app="web", pod_labels_app_kubernetes_io_name="web", pod_labels_extra="{\\"a\\":1}", pod_labels_ratio="0.5", pod_labels_replicas="3", pod_labels_tier="Front"}',
      );
    });

    it('expands with a bare `*` key, gives a name that would start with a digit a leading underscore, and adds nothing for a non-object', () => {
      const { encode } = encoder({ labels: { '*': '{{ meta }}', app: '{{ app }}' } });
      expect(encode(ev({ meta: { '1st': 'a', 'x-y': 'b' } })).stream.text).to.equal('{_1st="a", app="web", x_y="b"}');
      expect(encode(ev({ meta: 'scalar' })).stream.text).to.equal('{app="web"}');
      expect(slugLabelName('Pod.Name/x')).to.equal('pod_name_x');
    });

    it('expands the JSON text of a value template that is more than one field reference', () => {
      const { encode } = encoder({ labels: { 'x_*': '{"k":"{{ app }}"}' } });
      expect(encode(ev({})).stream.text).to.equal('{x_k="web"}');
    });

    it('a later rule wins a name two rules render', () => {
      const { encode } = encoder({ labels: { 'k_*': '{{ m }}', k_a: 'explicit' } });
      expect(encode(ev({ m: { a: 'expanded', b: 'x' } })).stream.text).to.equal('{k_a="explicit", k_b="x"}');
    });

    it('quotes values so the store reads them back unchanged (quotes, backslashes, newlines, lone surrogates)', () => {
      const { encode } = encoder({ labels: { v: '{{ v }}' } });
      const value = 'say "hi" \\ back\nslash\t\u0001 é 😀';
      const text = encode(ev({ v: value })).stream.text;
      expect(parseLabelSet(text)).to.deep.equal({ ok: true, pairs: [['v', value]] });
      expect(quoteLabelValue('a\uD800b')).to.equal('"a\uFFFDb"');
    });
  });

  describe('tenant', () => {
    it('renders tenant_id, is empty without it, and keeps the reason when it does not render', () => {
      expect(encoder({ tenant_id: 'team-{{ team }}' }).encode(ev({ team: 'a' })).tenant).to.equal('team-a');
      expect(encoder().encode(ev({})).tenant).to.equal('');
      const failed = encoder({ tenant_id: '{{ team }}' }).encode(ev({})).tenant;
      expect(failed).to.be.instanceOf(TemplateError);
      expect((failed as TemplateError).message).to.include('team');
    });
  });

  describe('timestamp and the fields of the line', () => {
    it('takes the event timestamp in nanoseconds, and the encoder clock without one', () => {
      const e = encoder().encode(ev({ timestamp: new Timestamp(1_700_000_000_123, 456_789) }));
      expect([e.ms, e.ns]).to.deep.equal([1_700_000_000_123, 456_789]);
      const none = encoder({}, 1234.9).encode(logEvent({ message: 'x', app: 'web' }));
      expect([none.ms, none.ns]).to.deep.equal([1234, 0]);
      const notTs = encoder({}, 99).encode(ev({ timestamp: '2023-01-01T00:00:00Z' }));
      expect([notTs.ms, notTs.ns]).to.deep.equal([99, 0]);
    });

    it('reads the timestamp at the global log_schema.timestamp_key', () => {
      const schema = { message_key: 'message', timestamp_key: 'ts', host_key: 'host', source_type_key: 'source_type' };
      const e = encoder({}, 0, schema).encode(logEvent({ message: 'x', app: 'web', ts: at(5), timestamp: at(9) }));
      expect(e.ms).to.equal(at(5).ms);
      expect(e.line).to.equal(`{"message":"x","app":"web","timestamp":"${at(9).toString()}"}`);
    });

    it('remove_timestamp (default true) leaves the timestamp out of the line; false keeps it', () => {
      expect(encoder().encode(ev({})).line).to.equal('{"message":"hello","app":"web"}');
      expect(encoder({ remove_timestamp: false }).encode(ev({})).line).to.equal(`{"message":"hello","app":"web","timestamp":"${at().toString()}"}`);
    });

    it('remove_label_fields leaves out the fields label values read (not those only keys read), without changing the event', () => {
      const labels = { app: '{{ app }}', '{{ kind }}': '{{ k.v }}' };
      const e = ev({ kind: 'x', k: { v: '1', w: '2' } });
      expect(encoder({ labels, remove_label_fields: true }).encode(e).line).to.equal('{"message":"hello","kind":"x","k":{"w":"2"}}');
      expect(encoder({ labels }).encode(e).line).to.equal('{"message":"hello","app":"web","kind":"x","k":{"v":"1","w":"2"}}');
      expect((e as { fields: Record<string, Value> }).fields.app).to.equal('web');
    });

    it('applies only_fields, except_fields and timestamp_format', () => {
      const e = ev({ a: 1, b: 2 });
      expect(encoder({ encoding: { codec: 'json', only_fields: ['message', 'a'] } }).encode(e).line).to.equal('{"message":"hello","a":1}');
      expect(encoder({ encoding: { codec: 'json', except_fields: ['a', 'app'] } }).encode(e).line).to.equal('{"message":"hello","b":2}');
      expect(encoder({ remove_timestamp: false, encoding: { codec: 'json', only_fields: ['timestamp'], timestamp_format: 'unix_ms' } }).encode(e).line).to.equal(`{"timestamp":${at().ms}}`);
    });

    it('sizes an entry by the UTF-8 bytes of its line', () => {
      expect(encoder({ encoding: { codec: 'text' } }).encode(ev({ message: 'héllo' })).size).to.equal(6);
    });

    it('refuses metric events', () => {
      const m = new MetricEvent('m', 'absolute', { type: 'gauge', value: 1 }, new EventMetadata('in', 'test'));
      expect(() => encoder().encode(m)).to.throw('log events only');
    });
  });

  describe('codecs: the codec encodes the line', () => {
    const fields = { message: 'hello', app: 'web', host: 'h1', n: 1, timestamp: at() };
    const lineOf = (encoding: Record<string, unknown>) => encoder({ encoding }).encode(logEvent({ ...fields })).line;

    it('json, text, raw_message, logfmt, gelf, native_json', () => {
      expect(lineOf({ codec: 'json' })).to.equal('{"message":"hello","app":"web","host":"h1","n":1}');
      expect(lineOf({ codec: 'text' })).to.equal('hello');
      expect(lineOf({ codec: 'raw_message' })).to.equal('hello');
      expect(lineOf({ codec: 'logfmt' })).to.equal('app=web host=h1 message=hello n=1');
      expect(lineOf({ codec: 'gelf' })).to.equal('{"version":"1.1","short_message":"hello","_app":"web","host":"h1","_n":1}');
      expect(lineOf({ codec: 'native_json' })).to.equal('{"log":{"message":"hello","app":"web","host":"h1","n":1}}');
    });

    it('native: the protobuf event, read back as text', () => {
      const line = lineOf({ codec: 'native' });
      const buf = Buffer.from(line, 'utf8');
      const out: Event[] = [];
      readNative(buf, 0, buf.length, { sourceId: 'in', sourceType: 'test', messageKey: 'message' }, out);
      expect(out).to.have.length(1);
      expect((out[0] as { fields: Record<string, Value> }).fields).to.include({ message: 'hello', app: 'web', host: 'h1', n: 1 });
    });

    it('avro: one datum with the configured schema (no header); bytes fields take the text', () => {
      const schema = { type: 'record', name: 'event', fields: [{ name: 'message', type: 'string' }, { name: 'n', type: 'long' }, { name: 'raw', type: ['null', 'bytes'], default: null }, { name: 'missing', type: 'string', default: 'd' }] };
      const enc = encoder({ encoding: { codec: 'avro', avro: { schema: JSON.stringify(schema) } } });
      const line = enc.encode(logEvent({ ...fields, raw: 'xy' })).line;
      const type = avro.Type.forSchema(schema as avro.Schema);
      expect(type.fromBuffer(Buffer.from(line, 'utf8'))).to.deep.include({ message: 'hello', n: 1, missing: 'd' });
      expect((type.fromBuffer(Buffer.from(line, 'utf8')) as { raw: Buffer }).raw.toString()).to.equal('xy');
      expect(() => enc.encode(logEvent({ message: 'no n' }))).to.throw('does not match the Avro schema');
    });
  });
});
