import { expect } from 'chai';
import { convertRequest, type RecordShape } from '../../../../connectors/sources/opentelemetry/record.js';
import { otlpLogsProto } from '../../../../connectors/sources/opentelemetry/proto.js';
import { Float, Timestamp } from '../../../../lib/value.js';

const shape: RecordShape = { sourceId: 'otel', sourceType: 'opentelemetry', messageKey: 'message', timestampKey: 'timestamp', sourceTypeKey: 'source_type' };
const NOW = 1_800_000_000_000;
const proto = otlpLogsProto();
/** Round trip through the official protos, as a protobuf client would send it. */
const viaProto = (req: object) => proto.request.decode(proto.request.encode(proto.request.fromObject(req)).finish());
const hex = (h: string) => Buffer.from(h, 'hex');

describe('opentelemetry records to events', () => {
  it('builds the reference example field by field, in insertion order', () => {
    const req = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'api' } }] },
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: '1714557600000000001',
                  observedTimeUnixNano: '1714557600500000000',
                  severityNumber: 9,
                  severityText: 'INFO',
                  body: { stringValue: 'GET /' },
                  attributes: [{ key: 'http.method', value: { stringValue: 'GET' } }],
                  traceId: hex('5b8efff798038103d269b633813fc60c'),
                },
              ],
            },
          ],
        },
      ],
    };
    const { events, rejected } = convertRequest(shape, viaProto(req), false, NOW);
    expect(rejected).to.equal(0);
    const f = events[0]!.fields;
    expect(Object.keys(f)).to.deep.equal(['message', 'resources', 'attributes', 'trace_id', 'severity_text', 'severity_number', 'dropped_attributes_count', 'observed_timestamp', 'timestamp', 'source_type']);
    expect(f.message).to.equal('GET /');
    expect(f.resources).to.deep.equal({ 'service.name': 'api' });
    expect(f.attributes).to.deep.equal({ 'http.method': 'GET' });
    expect(f.trace_id).to.equal('5b8efff798038103d269b633813fc60c');
    expect(f.severity_text).to.equal('INFO');
    expect(f.severity_number).to.equal(9);
    expect(f.dropped_attributes_count).to.equal(0);
    expect(String(f.timestamp)).to.equal('2024-05-01T10:00:00.000000001Z');
    expect(String(f.observed_timestamp)).to.equal('2024-05-01T10:00:00.500Z');
    expect(f.source_type).to.equal('opentelemetry');
    expect(events[0]!.meta.sourceId).to.equal('otel');
  });

  it('writes scope, span id, flags and dropped attributes only when set', () => {
    const req = {
      resourceLogs: [
        {
          scopeLogs: [
            {
              scope: { name: 'lib', version: '2.1', attributes: [{ key: 'a', value: { intValue: 5 } }], droppedAttributesCount: 2 },
              logRecords: [
                { timeUnixNano: 1, spanId: hex('0011223344556677'), traceId: hex('00112233445566778899aabbccddeeff'), flags: 1, droppedAttributesCount: 4 },
                {},
              ],
            },
            { scope: { name: '' }, logRecords: [{ timeUnixNano: 1 }] },
          ],
        },
      ],
    };
    const { events } = convertRequest(shape, viaProto(req), false, NOW);
    expect(events[0]!.fields.scope).to.deep.equal({ name: 'lib', version: '2.1', attributes: { a: 5 }, dropped_attributes_count: 2 });
    expect(events[0]!.fields.span_id).to.equal('0011223344556677');
    expect(events[0]!.fields.flags).to.equal(1);
    expect(events[0]!.fields.dropped_attributes_count).to.equal(4);
    expect(Object.keys(events[1]!.fields)).to.deep.equal(['scope', 'dropped_attributes_count', 'observed_timestamp', 'timestamp', 'source_type']);
    // an empty scope writes nothing; nor does an unset body, severity 0 or flags 0
    expect(Object.keys(events[2]!.fields)).to.deep.equal(['dropped_attributes_count', 'observed_timestamp', 'timestamp', 'source_type']);
    // each event owns its copy of the shared scope
    expect(events[0]!.fields.scope).to.not.equal(events[1]!.fields.scope);
  });

  it('timestamp falls back to observed_timestamp, and observed_timestamp to now', () => {
    const req = {
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ observedTimeUnixNano: '1700000000000000000' }, {}, { timeUnixNano: '1600000000000000000' }] }] }],
    };
    const { events } = convertRequest(shape, viaProto(req), false, NOW);
    expect((events[0]!.fields.timestamp as Timestamp).ms).to.equal(1_700_000_000_000);
    expect((events[0]!.fields.observed_timestamp as Timestamp).ms).to.equal(1_700_000_000_000);
    expect((events[1]!.fields.observed_timestamp as Timestamp).ms).to.equal(NOW);
    expect((events[1]!.fields.timestamp as Timestamp).ms).to.equal(NOW);
    expect((events[2]!.fields.timestamp as Timestamp).ms).to.equal(1_600_000_000_000);
    expect((events[2]!.fields.observed_timestamp as Timestamp).ms).to.equal(NOW);
  });

  it('converts every AnyValue kind; a KeyValue without value is dropped, last duplicate wins', () => {
    const body = {
      kvlistValue: {
        values: [
          { key: 's', value: { stringValue: 'x' } },
          { key: 'b', value: { boolValue: false } },
          { key: 'i', value: { intValue: '-9007199254740991' } },
          { key: 'd', value: { doubleValue: 1 } },
          { key: 'nan', value: { doubleValue: NaN } },
          { key: 'arr', value: { arrayValue: { values: [{ intValue: 1 }, {}, { stringValue: 'y' }] } } },
          { key: 'bytes', value: { bytesValue: Buffer.from('raw') } },
          { key: 'empty', value: {} },
          { key: 'none' },
          { key: 's', value: { stringValue: 'last' } },
        ],
      },
    };
    const { events } = convertRequest(shape, viaProto({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body }] }] }] }), false, NOW);
    const m = events[0]!.fields.message as Record<string, unknown>;
    expect(Object.keys(m)).to.deep.equal(['s', 'b', 'i', 'd', 'nan', 'arr', 'bytes', 'empty']);
    expect(m.s).to.equal('last');
    expect(m.b).to.equal(false);
    expect(m.i).to.equal(-9007199254740991);
    expect(m.d).to.be.instanceOf(Float);
    expect((m.d as Float).value).to.equal(1);
    expect(m.nan).to.equal(null);
    expect(m.arr).to.deep.equal([1, null, 'y']);
    expect(m.bytes).to.equal('raw');
    expect(m.empty).to.equal(null);
  });

  it('reads OTLP/JSON: hex ids, int64 as strings or numbers, base64 bytes', () => {
    const json = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'host', value: { stringValue: 'h' } }] },
          scopeLogs: [
            {
              scope: { name: 's' },
              logRecords: [
                {
                  timeUnixNano: '1700000000123456789',
                  observedTimeUnixNano: 1700000000000000000,
                  severityNumber: 17,
                  body: { bytesValue: Buffer.from('hi').toString('base64') },
                  attributes: [{ key: 'n', value: { intValue: 7 } }, { key: 'm', value: { intValue: '8' } }],
                  traceId: '5B8EFFF798038103D269B633813FC60C',
                  spanId: 'eee19b7ec3c1b174',
                  flags: 1,
                  unknownField: true,
                },
              ],
            },
          ],
        },
      ],
    };
    const { events } = convertRequest(shape, json, true, NOW);
    const f = events[0]!.fields;
    expect(f.message).to.equal('hi');
    expect(f.attributes).to.deep.equal({ n: 7, m: 8 });
    expect(f.trace_id).to.equal('5b8efff798038103d269b633813fc60c');
    expect(f.span_id).to.equal('eee19b7ec3c1b174');
    expect(f.flags).to.equal(1);
    expect(String(f.timestamp)).to.equal('2023-11-14T22:13:20.123456789Z');
    expect(String(f.observed_timestamp)).to.equal('2023-11-14T22:13:20Z');
    expect(f.resources).to.deep.equal({ host: 'h' });
  });

  it('refuses records whose trace or span id has the wrong length, keeping the others', () => {
    const req = {
      resourceLogs: [
        {
          scopeLogs: [
            { logRecords: [{ body: { stringValue: 'ok' } }, { traceId: hex('0011') }, { spanId: hex('00112233445566778899') }, { body: { stringValue: 'ok2' } }] },
          ],
        },
      ],
    };
    const out = convertRequest(shape, viaProto(req), false, NOW);
    expect(out.events.map((e) => e.fields.message)).to.deep.equal(['ok', 'ok2']);
    expect(out.rejected).to.equal(2);
    expect(out.reason).to.match(/trace id "0011"/);
    const json = convertRequest(shape, { resourceLogs: [{ scopeLogs: [{ logRecords: [{ traceId: 'zz112233445566778899aabbccddeeff' }] }] }] }, true, NOW);
    expect(json.rejected).to.equal(1);
  });

  it('honours the global log_schema keys', () => {
    const custom: RecordShape = { ...shape, messageKey: 'msg', timestampKey: 'ts', sourceTypeKey: 'st' };
    const { events } = convertRequest(custom, viaProto({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' }, timeUnixNano: 5 }] }] }] }), false, NOW);
    expect(Object.keys(events[0]!.fields)).to.deep.equal(['msg', 'dropped_attributes_count', 'observed_timestamp', 'ts', 'st']);
  });

  it('throws on JSON that is not a logs request', () => {
    expect(() => convertRequest(shape, { resourceLogs: 5 }, true, NOW)).to.throw(/resourceLogs must be an array/);
    expect(() => convertRequest(shape, [1], true, NOW)).to.throw();
    expect(() => convertRequest(shape, { resourceLogs: [{ scopeLogs: [{ logRecords: [7] }] }] }, true, NOW)).to.throw(/logRecords/);
  });
});
