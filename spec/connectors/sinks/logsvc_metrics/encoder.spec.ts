import { expect } from 'chai';
import { createLogsvcEncoder } from '../../../../connectors/sinks/logsvc_metrics/encoder.js';
import { defaultGlobals } from '../../../../lib/config/global.js';
import { type Event, logEvent } from '../../../../lib/event.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';
import { counter, gauge, metric } from '../../shared/hec/harness.js';
import { logsvcConfig } from './harness.js';

const NOW = 1_700_000_005_250;
const LOG_SCHEMA = defaultGlobals().log_schema;

describe('connectors/sinks/logsvc_metrics: metrics as HEC log envelopes', () => {
  let ctx: TestSinkContext;
  beforeEach(() => {
    ctx = testSinkContext('logsvc_metrics');
  });
  const encoder = (extra: Record<string, unknown> = {}, tz?: string, logSchema = LOG_SCHEMA) => createLogsvcEncoder(logsvcConfig('http://127.0.0.1:1', extra), logSchema, ctx, tz, () => NOW);
  const text = (e: Event, extra: Record<string, unknown> = {}) => encoder(extra).encode(e).text;

  describe('every metric kind: exact envelope', () => {
    it('counter: name, namespace, tags, kind and value in sorted keys; the host tag becomes the host field and the envelope host', () => {
      const out = encoder().encode(counter('requests', 3, { namespace: 'app', tags: { host: 'h1', env: 'prod' } }));
      expect(out.text).to.equal('{"event":{"counter":{"value":3},"host":"h1","kind":"incremental","name":"requests","namespace":"app","tags":{"env":"prod"}},"fields":{},"time":1700000000.123,"host":"h1"}');
      expect(out.size).to.equal(Buffer.byteLength(out.text));
    });

    it('gauge: without tags and timestamp, the time is now', () => {
      expect(text(gauge('load', 0.5, { timestamp: null }))).to.equal('{"event":{"gauge":{"value":0.5},"kind":"absolute","name":"load"},"fields":{},"time":1700000005.25}');
    });

    it('set: values sorted, each once', () => {
      expect(text(metric('users', { type: 'set', values: ['b', 'a', 'b'] }))).to.equal('{"event":{"kind":"incremental","name":"users","set":{"values":["a","b"]}},"fields":{},"time":1700000000.123}');
    });

    it('distribution: samples and statistic', () => {
      const d = metric('latency', { type: 'distribution', samples: [{ value: 1.5, rate: 2 }, { value: 3, rate: 1 }], statistic: 'summary' });
      expect(text(d)).to.equal('{"event":{"distribution":{"samples":[{"rate":2,"value":1.5},{"rate":1,"value":3}],"statistic":"summary"},"kind":"incremental","name":"latency"},"fields":{},"time":1700000000.123}');
    });

    it('aggregated_histogram: buckets, count, sum; an infinite bound has no JSON number and is written null', () => {
      const h = metric('size', { type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 2 }, { upper_limit: Infinity, count: 3 }], count: 5, sum: 7.5 }, { kind: 'absolute', intervalMs: 10_000 });
      expect(text(h)).to.equal(
        '{"event":{"aggregated_histogram":{"buckets":[{"count":2,"upper_limit":1},{"count":3,"upper_limit":null}],"count":5,"sum":7.5},"interval_ms":10000,"kind":"absolute","name":"size"},"fields":{},"time":1700000000.123}',
      );
    });

    it('aggregated_summary: quantiles, count, sum', () => {
      const q = metric('rtt', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 3 }, { quantile: 0.99, value: 9 }], count: 4, sum: 10 }, { kind: 'absolute' });
      expect(text(q)).to.equal('{"event":{"aggregated_summary":{"count":4,"quantiles":[{"quantile":0.5,"value":3},{"quantile":0.99,"value":9}],"sum":10},"kind":"absolute","name":"rtt"},"fields":{},"time":1700000000.123}');
    });
  });

  it('metric_tag_values = "single" (default): the last non-null value; a tag with none is left out', () => {
    const m = counter('c', 1, { tags: { code: ['200', 'success', null], bare: null, one: 'x' } });
    expect(text(m)).to.contain('"tags":{"code":"success","one":"x"}');
  });

  it('metric_tag_values = "full": every tag as an array of all its values, nulls kept; the host is the last value', () => {
    const m = counter('c', 1, { tags: { code: ['200', 'success'], bare: null, one: 'x', host: ['h0', 'h1', null] } });
    expect(text(m, { metric_tag_values: 'full' })).to.equal(
      '{"event":{"counter":{"value":1},"host":"h1","kind":"incremental","name":"c","tags":{"bare":[null],"code":["200","success"],"one":["x"]}},"fields":{},"time":1700000000.123,"host":"h1"}',
    );
  });

  it('host_tag names the tag moved to the host field; the host tag then stays a tag', () => {
    const out = text(counter('c', 1, { tags: { node: 'n1', host: 'h1' } }), { host_tag: 'node' });
    expect(out).to.equal('{"event":{"counter":{"value":1},"host":"n1","kind":"incremental","name":"c","tags":{"host":"h1"}},"fields":{},"time":1700000000.123,"host":"n1"}');
  });

  it('host_key names the log field the envelope host is read from', () => {
    const out = text(counter('c', 1, { tags: { host: 'h1' } }), { host_key: 'name' });
    expect(out).to.match(/,"time":1700000000\.123,"host":"c"\}$/);
    expect(text(counter('c', 1), { host_key: 'missing' })).to.not.contain(',"host":');
  });

  it('the global log_schema decides the host and timestamp fields of the log', () => {
    const out = encoder({ host_key: 'hostname' }, undefined, { ...LOG_SCHEMA, host_key: 'hostname', timestamp_key: '@ts' }).encode(counter('c', 1, { tags: { host: 'h1' } })).text;
    expect(out).to.equal('{"event":{"counter":{"value":1},"hostname":"h1","kind":"incremental","name":"c"},"fields":{},"time":1700000000.123,"host":"h1"}');
  });

  it('event_type, source and index render against the log: sourcetype, source and index', () => {
    const e = encoder({ event_type: 'metrics-{{ kind }}', source: '{{ host }}/{{ tags.env }}', index: '{{ namespace }}' });
    const out = e.encode(counter('c', 1, { namespace: 'weir', tags: { host: 'h1', env: 'prod' } })).text;
    expect(out).to.match(/"time":1700000000\.123,"host":"h1","index":"weir","source":"h1\/prod","sourcetype":"metrics-incremental"\}$/);
    // the tags the templates used stay in the event (the log keeps them)
    expect(out).to.contain('"tags":{"env":"prod"}');
  });

  it('a template that does not render leaves its member out and counts the failure', () => {
    const out = text(counter('c', 1), { index: '{{ namespace }}', event_type: 'fixed' });
    expect(out).to.equal('{"event":{"counter":{"value":1},"kind":"incremental","name":"c"},"fields":{},"time":1700000000.123,"sourcetype":"fixed"}');
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed', stage: 'processing' })).to.equal(1);
  });

  it('indexed_fields: copies of the listed fields present in the log; "#name" is sent as named (an event tag) and read from name', () => {
    const m = counter('c', 1, { namespace: 'ns', tags: { env: 'prod', region: 'eu' } });
    const out = text(m, { indexed_fields: ['kind', 'tags.env', '#tags.region', '#namespace', 'tags', 'missing'] });
    expect(out).to.contain('"fields":{"#namespace":"ns","#tags.region":"eu","kind":"incremental","tags":"{\\"env\\":\\"prod\\",\\"region\\":\\"eu\\"}","tags.env":"prod"}');
    // the event keeps the fields
    expect(out).to.contain('"event":{"counter":{"value":1},"kind":"incremental","name":"c","namespace":"ns","tags":{"env":"prod","region":"eu"}}');
  });

  it('timezone applies to strftime items of the templates', () => {
    const tokyo = encoder({ source: '%Y-%m-%d %H' }, 'Asia/Tokyo').encode(counter('c', 1)).text;
    expect(tokyo).to.contain('"source":"2023-11-15 07"');
    const utc = encoder({ source: '%Y-%m-%d %H' }, undefined).encode(counter('c', 1)).text;
    expect(utc).to.contain('"source":"2023-11-14 22"');
  });

  it('a log event is refused', () => {
    expect(() => encoder().encode(logEvent({ message: 'x' }))).to.throw('metric events only');
  });
});
