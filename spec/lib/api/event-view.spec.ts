/** What tap shows of an event: Log and Metric fields and the three encodings. */
import { expect } from 'chai';
import { encodeEvent, logField, logMessage, logTimestamp, metricTags, metricValueText, metricValueType, tapCopy } from '../../../lib/api/event-view.js';
import { EventMetadata, LogEvent, MetricEvent } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';

const meta = () => new EventMetadata('in', 'test_feed');

describe('tap event view', () => {
  const ts = Timestamp.parse('2024-05-01T10:00:00.5Z')!;
  const log = new LogEvent({ message: 'hello world', timestamp: ts, n: 3, nested: { a: [1, 'x'] } }, meta());

  it('log fields: message as text, timestamp only when a timestamp, json(field) by path', () => {
    expect(logMessage(log)).to.equal('hello world');
    expect(logMessage(new LogEvent({ message: 42 }, meta()))).to.equal('42');
    expect(logMessage(new LogEvent({}, meta()))).to.equal(null);
    expect(logTimestamp(log)).to.equal('2024-05-01T10:00:00.500Z');
    expect(logTimestamp(new LogEvent({ timestamp: 'not a timestamp' }, meta()))).to.equal(null);
    expect(logField(log, 'nested.a')).to.equal('[1,"x"]');
    expect(logField(log, 'nested.a[1]')).to.equal('"x"');
    expect(logField(log, 'missing')).to.equal(null);
    expect(logField(log, '..bad[')).to.equal(null);
  });

  it('log encodings: JSON, YAML, logfmt', () => {
    expect(JSON.parse(encodeEvent(log, 'JSON'))).to.deep.equal({ message: 'hello world', timestamp: '2024-05-01T10:00:00.500Z', n: 3, nested: { a: [1, 'x'] } });
    expect(encodeEvent(log, 'YAML')).to.equal('message: hello world\ntimestamp: 2024-05-01T10:00:00.500Z\nn: 3\nnested:\n  a:\n    - 1\n    - x\n');
    expect(encodeEvent(log, 'LOGFMT')).to.equal('message="hello world" n=3 nested.a.0=1 nested.a.1=x timestamp=2024-05-01T10:00:00.500Z');
  });

  it('metric fields: value type names, value text, single-valued tags', () => {
    const m = new MetricEvent('requests', 'incremental', { type: 'counter', value: 2.5 }, meta(), 'app', { host: 'a', multi: ['x', 'y'], one: ['z'], bare: null }, ts);
    expect(metricValueType(m.value)).to.equal('counter');
    expect(metricValueText(m.value)).to.equal('2.5');
    expect(metricTags(m)).to.deep.equal([
      { key: 'host', value: 'a' },
      { key: 'one', value: 'z' },
    ]);
    expect(JSON.parse(encodeEvent(m, 'JSON'))).to.deep.equal({ name: 'requests', namespace: 'app', tags: { host: 'a', multi: ['x', 'y'], one: ['z'], bare: null }, timestamp: '2024-05-01T10:00:00.500Z', kind: 'incremental', counter: { value: 2.5 } });
    expect(encodeEvent(m, 'LOGFMT')).to.include('counter.value=2.5').and.include('name=requests');
    expect(metricValueType({ type: 'aggregated_histogram', buckets: [], count: 0, sum: 0 })).to.equal('aggregated histogram');
    expect(metricValueText({ type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 2 }, { upper_limit: Infinity, count: 3 }], count: 5, sum: 7.5 })).to.equal('count=5 sum=7.5 2@1 3@inf');
    expect(metricValueText({ type: 'set', values: ['a', 'b c'] })).to.equal('a "b c"');
    expect(metricValueText({ type: 'distribution', samples: [{ value: 1.5, rate: 2 }], statistic: 'histogram' })).to.equal('histogram 2@1.5');
    expect(metricValueText({ type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 3 }], count: 1, sum: 3 })).to.equal('count=1 sum=3 0.5@3');
  });

  it('copies without acknowledgement claims', () => {
    const copy = tapCopy(log) as LogEvent;
    expect(copy).to.not.equal(log);
    expect(copy.meta.notifiers).to.equal(undefined);
    (copy.fields.nested as { a: unknown[] }).a.push('more');
    expect((log.fields.nested as { a: unknown[] }).a).to.have.length(2);
  });
});
