import { expect } from 'chai';
import { EncodeError } from '../../../../lib/codecs/encoding.js';
import { logEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { createTsdbEncoder } from '../../../../connectors/sinks/tsdb_metrics/encoder.js';
import { formatFloat, formatTime } from '../../../../connectors/sinks/tsdb_metrics/line-protocol.js';
import { batchBody } from '../../../../connectors/sinks/tsdb_metrics/request.js';
import { T0, T0_NS, counter, gauge, metric, tsdbConfig } from './harness.js';

const V2 = { org: 'o', bucket: 'b', token: 't' };
const V1 = { database: 'db' };
const enc = (extra: Record<string, unknown> = V2, now = () => 0) => createTsdbEncoder(tsdbConfig('http://127.0.0.1:1', { ...V2, ...extra }), now);
const enc1 = (extra: Record<string, unknown> = {}) => createTsdbEncoder(tsdbConfig('http://127.0.0.1:1', { ...V1, ...extra }), () => 0);

const histogram = metric('latency', {
  type: 'aggregated_histogram',
  buckets: [
    { upper_limit: 0.5, count: 2 },
    { upper_limit: 1, count: 5 },
    { upper_limit: 2.1, count: 6 },
    { upper_limit: Infinity, count: 7 },
  ],
  count: 7,
  sum: 9.25,
}, { namespace: 'app', kind: 'absolute' });
const summary = metric('rtt', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1.5 }, { quantile: 0.99, value: 3 }], count: 10, sum: 20 }, { kind: 'absolute' });
// Vector's statistic example: sorted 1×2, 2×1, 3×4, 4×3 -> count 10, sum 28
const samples = [
  { value: 3, rate: 4 },
  { value: 1, rate: 2 },
  { value: 4, rate: 3 },
  { value: 2, rate: 1 },
  { value: 9, rate: 0 },
];

describe('connectors/sinks/tsdb_metrics: line protocol per metric kind', () => {
  it('counter: value as a float, metric_type=counter, tags sorted, nanosecond timestamp', () => {
    expect(enc().encode(counter('requests', 3, { namespace: 'app', tags: { region: 'eu', host: 'a' } })).line).to.equal(
      `app.requests,host=a,metric_type=counter,region=eu value=3 ${T0_NS}`,
    );
  });

  it('gauge: value as a float (negative, fractional)', () => {
    expect(enc().encode(gauge('temp', -1.5, { kind: 'absolute' })).line).to.equal(`temp,metric_type=gauge value=-1.5 ${T0_NS}`);
  });

  it('set: value = number of distinct members', () => {
    expect(enc().encode(metric('users', { type: 'set', values: ['alice', 'bob', 'alice'] })).line).to.equal(`users,metric_type=set value=2 ${T0_NS}`);
  });

  it('histogram: bucket_<upper> counts, count unsigned (u for generation 2, i for generation 1), sum float, +Inf bucket as bucket_inf', () => {
    expect(enc().encode(histogram).line).to.equal(`app.latency,metric_type=histogram bucket_0.5=2u,bucket_1=5u,bucket_2.1=6u,bucket_inf=7u,count=7u,sum=9.25 ${T0_NS}`);
    expect(enc1().encode(histogram).line).to.equal(`app.latency,metric_type=histogram bucket_0.5=2i,bucket_1=5i,bucket_2.1=6i,bucket_inf=7i,count=7i,sum=9.25 ${T0_NS}`);
  });

  it('summary: quantile_<q> values, count, sum', () => {
    expect(enc().encode(summary).line).to.equal(`rtt,metric_type=summary quantile_0.5=1.5,quantile_0.99=3,count=10u,sum=20 ${T0_NS}`);
    expect(enc1().encode(summary).line).to.equal(`rtt,metric_type=summary quantile_0.5=1.5,quantile_0.99=3,count=10i,sum=20 ${T0_NS}`);
  });

  it('distribution (summary statistic): min, max, median, avg, sum, count as floats, then the quantiles option with two decimals', () => {
    expect(enc().encode(metric('size', { type: 'distribution', samples, statistic: 'summary' })).line).to.equal(
      `size,metric_type=distribution min=1,max=4,median=3,avg=2.8,sum=28,count=10,quantile_0.50=3,quantile_0.75=4,quantile_0.90=4,quantile_0.95=4,quantile_0.99=4 ${T0_NS}`,
    );
  });

  it('distribution (histogram statistic): only quantile_0.95, whatever quantiles says', () => {
    expect(enc({ quantiles: [0.1] }).encode(metric('size', { type: 'distribution', samples, statistic: 'histogram' })).line).to.equal(
      `size,metric_type=distribution min=1,max=4,median=3,avg=2.8,sum=28,count=10,quantile_0.95=4 ${T0_NS}`,
    );
  });

  it('quantiles: the summary quantiles of distributions', () => {
    expect(enc({ quantiles: [0.1, 0.3, 0.75] }).encode(metric('size', { type: 'distribution', samples, statistic: 'summary' })).line).to.equal(
      `size,metric_type=distribution min=1,max=4,median=3,avg=2.8,sum=28,count=10,quantile_0.10=1,quantile_0.30=2,quantile_0.75=4 ${T0_NS}`,
    );
  });

  it('a distribution of one sample: every statistic is its value, sum = value × rate', () => {
    expect(enc({ quantiles: [0.5] }).encode(metric('one', { type: 'distribution', samples: [{ value: 0.9, rate: 100 }], statistic: 'summary' })).line).to.equal(
      `one,metric_type=distribution min=0.9,max=0.9,median=0.9,avg=0.9,sum=90,count=100,quantile_0.50=0.9 ${T0_NS}`,
    );
  });

  it('a metric with no field to write (empty distribution, NaN gauge) and a log event are encoding errors', () => {
    const e = enc();
    expect(() => e.encode(metric('d', { type: 'distribution', samples: [{ value: 1, rate: 0 }], statistic: 'summary' }))).to.throw(EncodeError, /no field/);
    expect(() => e.encode(gauge('g', NaN, { kind: 'absolute' }))).to.throw(EncodeError, /no field/);
    expect(() => e.encode(gauge('g', Infinity, { kind: 'absolute' }))).to.throw(EncodeError, /no field/);
    expect(() => e.encode(logEvent({ message: 'x' }))).to.throw(EncodeError, /metric events only/);
  });

  it('non-finite values inside a metric are left out; the rest is written', () => {
    const m = metric('s', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: NaN }], count: 1, sum: 2 }, { kind: 'absolute' });
    expect(enc().encode(m).line).to.equal(`s,metric_type=summary count=1u,sum=2 ${T0_NS}`);
  });
});

describe('connectors/sinks/tsdb_metrics: names, tags and numbers', () => {
  it('default_namespace prefixes only metrics without a namespace', () => {
    const e = enc({ default_namespace: 'svc' });
    expect(e.encode(counter('a', 1)).line).to.equal(`svc.a,metric_type=counter value=1 ${T0_NS}`);
    expect(e.encode(counter('a', 1, { namespace: 'own' })).line).to.equal(`own.a,metric_type=counter value=1 ${T0_NS}`);
  });

  it('tags: config tags are added to every line and win over metric tags; metric_type always wins', () => {
    const e = enc({ tags: { region: 'us', dc: 'x' } });
    expect(e.encode(counter('a', 1, { tags: { region: 'eu', host: 'h', metric_type: 'mine' } })).line).to.equal(`a,dc=x,host=h,metric_type=counter,region=us value=1 ${T0_NS}`);
  });

  it('tags: empty keys and values and bare tags are skipped; a multi-valued tag writes its last value', () => {
    expect(enc().encode(counter('a', 1, { tags: { '': 'x', e: '', bare: null, multi: ['one', 'two', null] } })).line).to.equal(`a,metric_type=counter,multi=two value=1 ${T0_NS}`);
  });

  it('escapes by the server rules: measurement `,` and space; tag keys and values also `=`; backslashes stay as written', () => {
    const m = counter('my metric,x', 1, { namespace: 'n=s', tags: { 'k y': 'a,b=c d', path: 'C:\\x' } });
    expect(enc().encode(m).line).to.equal(`n=s.my\\ metric\\,x,k\\ y=a\\,b\\=c\\ d,metric_type=counter,path=C:\\x value=1 ${T0_NS}`);
  });

  it('a tag line protocol cannot carry (line break, trailing backslash) is left out; such a name rejects the metric', () => {
    expect(enc().encode(counter('a', 1, { tags: { nl: 'x\ny', end: 'dir\\', ok: 'y' } })).line).to.equal(`a,metric_type=counter,ok=y value=1 ${T0_NS}`);
    expect(() => enc().encode(counter('a\nb', 1))).to.throw(EncodeError, /cannot be written/);
  });

  it('floats: shortest round trip, never an exponent', () => {
    expect([1, 0.5, 0.1 + 0.2, 1e21, 1.5e-7, -2.5e22, 123456789012].map(formatFloat)).to.deep.equal([
      '1',
      '0.5',
      '0.30000000000000004',
      '1000000000000000000000',
      '0.00000015',
      '-25000000000000000000000',
      '123456789012',
    ]);
  });

  it('a metric without a timestamp is written at the time it enters the sink (scheduler time)', () => {
    const e = enc(V2, () => 1_700_000_001_234);
    expect(e.encode(counter('a', 1, { timestamp: null })).line).to.equal('a,metric_type=counter value=1 1700000001234000000');
  });

  it('encoding.timestamp_format picks the write precision: unix = s, unix_ms, unix_us, unix_ns and rfc3339 = ns', () => {
    const line = (f: string) => enc({ encoding: { timestamp_format: f } }).encode(counter('a', 1)).line.split(' ')[2];
    expect(['unix', 'unix_ms', 'unix_us', 'unix_ns', 'rfc3339'].map(line)).to.deep.equal(['1700000000', '1700000000000', '1700000000000000', T0_NS, T0_NS]);
    expect(formatTime(-1, 5, 'ns')).to.equal('-999995');
  });

  it('encoding.only_fields and except_fields filter line fields; `tags.<key>` entries filter tags', () => {
    expect(enc({ encoding: { only_fields: ['count', 'sum'] } }).encode(histogram).line).to.equal(`app.latency,metric_type=histogram count=7u,sum=9.25 ${T0_NS}`);
    expect(enc({ encoding: { except_fields: ['bucket_inf', 'sum'] } }).encode(histogram).line).to.equal(`app.latency,metric_type=histogram bucket_0.5=2u,bucket_1=5u,bucket_2.1=6u,count=7u ${T0_NS}`);
    const tagged = counter('a', 1, { tags: { host: 'h', pod: 'p' } });
    expect(enc({ encoding: { except_fields: ['tags.pod', 'tags.metric_type'] } }).encode(tagged).line).to.equal(`a,host=h value=1 ${T0_NS}`);
    expect(enc({ tags: { dc: 'x' }, encoding: { only_fields: ['tags.host', 'value'] } }).encode(tagged).line).to.equal(`a,host=h value=1 ${T0_NS}`);
    expect(() => enc({ encoding: { only_fields: ['nothing'] } }).encode(tagged)).to.throw(EncodeError, /no field/);
  });
});

describe('connectors/sinks/tsdb_metrics: normalisation', () => {
  it('absolute counters become deltas per series: the first only sets the reference, a reset sends the new value', () => {
    const e = enc();
    const abs = (v: number, host = 'a') => e.encode(counter('c', v, { kind: 'absolute', tags: { host } }));
    expect(abs(10).line).to.equal('');
    expect(abs(100, 'b').line).to.equal('');
    expect(abs(15).line).to.equal(`c,host=a,metric_type=counter value=5 ${T0_NS}`);
    expect(abs(120, 'b').line).to.equal(`c,host=b,metric_type=counter value=20 ${T0_NS}`);
    expect(abs(3).line).to.equal(`c,host=a,metric_type=counter value=3 ${T0_NS}`);
    // incremental counters pass unchanged
    expect(e.encode(counter('c', 7, { tags: { host: 'a' } })).line).to.equal(`c,host=a,metric_type=counter value=7 ${T0_NS}`);
  });

  it('incremental gauges add up to a running total per series; an absolute gauge resets it', () => {
    const e = enc();
    const inc = (v: number) => e.encode(gauge('g', v)).line.split(' ')[1];
    expect([inc(2), inc(3), inc(-1)]).to.deep.equal(['value=2', 'value=5', 'value=4']);
    e.encode(gauge('g', 100, { kind: 'absolute' }));
    expect(inc(1)).to.equal('value=101');
  });
});

describe('connectors/sinks/tsdb_metrics: one batch, one body', () => {
  const T1 = new Timestamp(T0.ms + 1000, 0);
  it('lines joined by a newline, none after the last', () => {
    const e = enc();
    expect(batchBody([e.encode(counter('a', 1)), e.encode(gauge('b', 2, { kind: 'absolute' }))], e)).to.equal(
      `a,metric_type=counter value=1 ${T0_NS}\nb,metric_type=gauge value=2 ${T0_NS}`,
    );
  });

  it('collapses one series: incremental values add up at the later time, the latest absolute value wins', () => {
    const e = enc();
    const items = [
      e.encode(counter('hits', 1, { tags: { h: 'a' } })),
      e.encode(counter('hits', 2, { tags: { h: 'b' } })),
      e.encode(gauge('temp', 20, { kind: 'absolute' })),
      e.encode(counter('hits', 4, { tags: { h: 'a' }, timestamp: T1 })),
      e.encode(gauge('temp', 21, { kind: 'absolute' })),
      e.encode(metric('u', { type: 'set', values: ['x', 'y'] })),
      e.encode(metric('u', { type: 'set', values: ['y', 'z'] })),
      e.encode(counter('hits', 8, { tags: { h: 'a' } })),
    ];
    expect(batchBody(items, e).split('\n')).to.deep.equal([
      'hits,h=a,metric_type=counter value=13 1700000001000000000',
      `hits,h=b,metric_type=counter value=2 ${T0_NS}`,
      `temp,metric_type=gauge value=21 ${T0_NS}`,
      `u,metric_type=set value=3 ${T0_NS}`,
    ]);
  });

  it('first absolute values write nothing: a batch of only those has an empty body', () => {
    const e = enc();
    expect(batchBody([e.encode(counter('c', 1, { kind: 'absolute' })), e.encode(counter('d', 1, { kind: 'absolute' }))], e)).to.equal('');
  });
});
