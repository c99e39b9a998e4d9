import { expect } from 'chai';
import { EventMetadata, MetricEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { renderExposition } from '../../../../connectors/shared/prometheus/exposition.js';
import { ParseError, parseText } from '../../../../connectors/shared/prometheus/text-parse.js';
import { familiesToMetrics } from '../../../../connectors/shared/prometheus/to-metrics.js';
import { DEFAULT_BUCKETS, DEFAULT_QUANTILES } from '../../../../connectors/shared/prometheus/samples.js';
import { promtoolCheckMetrics } from '../../../peers/prometheus.js';
import { FIXTURE_TEXT } from './fixture.js';

const NOW = new Timestamp(1_700_000_000_000);
const origin = { sourceId: 'in', sourceType: 'prometheus_scrape' };
const read = (text: string) => familiesToMetrics(parseText(text), NOW, origin).map((m) => m.toJSON());
const meta = () => new EventMetadata('in', 'test');

describe('connectors/shared/prometheus: the text format', () => {
  it('reads every metric type of the fixture as Vector does', () => {
    const got = read(FIXTURE_TEXT);
    expect(got).to.have.length(9);
    expect(got[0]).to.deep.equal({ name: 'http_requests_total', tags: { code: '200', method: 'post' }, timestamp: new Timestamp(1395066363000).toString(), kind: 'absolute', counter: { value: 1027 } });
    expect(got[1]).to.deep.include({ counter: { value: 3 } });
    expect(got[2]).to.deep.equal({ name: 'temperature_celsius', tags: { room: 'kitchen' }, timestamp: NOW.toString(), kind: 'absolute', gauge: { value: -3.5 } });
    // untyped samples are gauges; escapes decoded
    expect(got[3]).to.deep.equal({
      name: 'msdos_file_access_time_seconds',
      tags: { error: 'Cannot find file:\n"FILE.TXT"', path: 'C:\\DIR\\FILE.TXT' },
      timestamp: NOW.toString(),
      kind: 'absolute',
      gauge: { value: 1.458255915e9 },
    });
    expect(got[4]).to.deep.include({ name: 'metric_without_timestamp_and_labels', gauge: { value: 12.47 } });
    // a negative timestamp (before the epoch) and +Inf
    expect(got[5]).to.deep.include({ name: 'something_weird', timestamp: new Timestamp(-3982045).toString(), gauge: { value: Infinity } });
    // cumulative buckets to per-bucket counts; the +Inf bucket dropped
    expect(got[6]).to.deep.equal({
      name: 'http_request_duration_seconds',
      timestamp: NOW.toString(),
      kind: 'absolute',
      aggregated_histogram: {
        buckets: [
          { upper_limit: 0.05, count: 24054 },
          { upper_limit: 0.1, count: 9390 },
          { upper_limit: 0.2, count: 66948 },
          { upper_limit: 0.5, count: 28997 },
          { upper_limit: 1, count: 4599 },
        ],
        count: 144320,
        sum: 53423,
      },
    });
    expect(got[7]).to.deep.equal({
      name: 'rpc_duration_seconds',
      timestamp: NOW.toString(),
      kind: 'absolute',
      aggregated_summary: {
        quantiles: [
          { quantile: 0.01, value: 3102 },
          { quantile: 0.05, value: 3272 },
          { quantile: 0.5, value: 4773 },
          { quantile: 0.9, value: 9001 },
          { quantile: 0.99, value: 76656 },
        ],
        count: 2693,
        sum: 1.7560473e7,
      },
    });
  });

  it('reads NaN values and drops them only when asked', () => {
    const fams = parseText('# TYPE go_untyped untyped\ngo_untyped{a="b"} NaN\n');
    expect(Number.isNaN((familiesToMetrics(fams, NOW, origin)[0]!.value as { value: number }).value)).to.equal(true);
    expect(familiesToMetrics(fams, NOW, origin, true)).to.have.length(0);
  });

  it('groups samples the way the TYPE lines say; other names open untyped families', () => {
    const fams = parseText('# TYPE a counter\na 1\na_bucket 2\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_total 5\n');
    expect(fams.map((f) => [f.name, f.type])).to.deep.equal([
      ['a', 'counter'],
      ['a_bucket', 'untyped'],
      ['h', 'histogram'],
      ['h_total', 'untyped'],
    ]);
  });

  it('accepts OpenMetrics `# EOF` and the `unknown` type, CRLF lines and a trailing comma in labels', () => {
    const fams = parseText('# TYPE x unknown\r\nx{a="1",} 2\r\n# EOF\r\n');
    expect(fams).to.deep.equal([{ name: 'x', type: 'untyped', points: [{ labels: { a: '1' }, timestamp: undefined, value: 2 }] }]);
  });

  for (const [what, text, message] of [
    ['a value that is no number', 'x 1a', /line 1: value is not a number/],
    ['an unterminated label value', 'x{a="1} 2', /unterminated label value/],
    ['a bucket without le', '# TYPE h histogram\nh_bucket 1', /line 2: expected "le" label/],
    ['a summary sample without quantile', '# TYPE s summary\ns 1', /expected "quantile" label/],
    ['a float timestamp', 'x 1 1.5', /timestamp must be integer milliseconds/],
    ['an unknown type', '# TYPE x bogus', /invalid metric type "bogus"/],
    ['a negative count', '# TYPE h histogram\nh_count -1', /count out of range/],
  ] as const) {
    it(`rejects ${what}, naming the line`, () => {
      expect(() => parseText(text)).to.throw(ParseError, message);
    });
  }

  it('writes what it reads: the fixture read, rendered and read again is the same', () => {
    const metrics = familiesToMetrics(parseText(FIXTURE_TEXT), NOW, origin).filter((m) => m.name !== 'go_untyped');
    const text = renderExposition(metrics, { defaultNamespace: undefined, buckets: DEFAULT_BUCKETS, quantiles: DEFAULT_QUANTILES });
    const again = familiesToMetrics(parseText(text), NOW, origin).map((m) => m.toJSON());
    const byName = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.name).localeCompare(String(b.name));
    // untyped samples come back as gauges either way; order follows the families' names
    expect(again.sort(byName)).to.deep.equal(metrics.map((m) => m.toJSON()).sort(byName));
  });

  it('renders every value type as Vector does, and promtool accepts it', () => {
    const ts = new Timestamp(1_700_000_000_123);
    const metrics = [
      new MetricEvent('requests', 'absolute', { type: 'counter', value: 5 }, meta(), 'app', { path: 'a"b\\c\nd', code: '200' }, ts),
      new MetricEvent('temp', 'absolute', { type: 'gauge', value: -1.5 }, meta(), undefined, undefined, ts),
      new MetricEvent('users', 'absolute', { type: 'set', values: ['a', 'b', 'c'] }, meta(), 'app'),
      new MetricEvent('latency', 'absolute', { type: 'distribution', samples: [{ value: 0.2, rate: 2 }, { value: 3, rate: 1 }, { value: 100, rate: 1 }], statistic: 'histogram' }, meta(), 'app'),
      new MetricEvent('size', 'absolute', { type: 'distribution', samples: [{ value: 1, rate: 1 }, { value: 2, rate: 1 }, { value: 3, rate: 2 }], statistic: 'summary' }, meta(), 'app'),
      new MetricEvent('hist', 'absolute', { type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 2 }, { upper_limit: 2, count: 3 }, { upper_limit: Infinity, count: 1 }], count: 6, sum: 7.5 }, meta(), 'app'),
      new MetricEvent('summ', 'absolute', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1 }, { quantile: 0.99, value: 4 }], count: 10, sum: 20 }, meta(), 'app'),
      new MetricEvent('skipped', 'incremental', { type: 'counter', value: 1 }, meta(), 'app'),
    ];
    const text = renderExposition(metrics, { defaultNamespace: 'dflt', buckets: [1, 5], quantiles: [0.5, 1] });
    expect(text).to.equal(
      [
        '# HELP app_hist hist',
        '# TYPE app_hist histogram',
        'app_hist_bucket{le="1"} 2',
        'app_hist_bucket{le="2"} 5',
        'app_hist_bucket{le="+Inf"} 6',
        'app_hist_sum 7.5',
        'app_hist_count 6',
        '# HELP app_latency latency',
        '# TYPE app_latency histogram',
        'app_latency_bucket{le="1"} 2',
        'app_latency_bucket{le="5"} 3',
        'app_latency_bucket{le="+Inf"} 4',
        'app_latency_sum 103.4',
        'app_latency_count 4',
        '# HELP app_requests requests',
        '# TYPE app_requests counter',
        'app_requests{code="200",path="a\\"b\\\\c\\nd"} 5 1700000000123',
        '# HELP app_size size',
        '# TYPE app_size summary',
        'app_size{quantile="0.5"} 2',
        'app_size{quantile="1"} 3',
        'app_size_sum 9',
        'app_size_count 4',
        'app_size_min 1',
        'app_size_max 3',
        'app_size_avg 2.25',
        '# HELP app_summ summ',
        '# TYPE app_summ summary',
        'app_summ{quantile="0.5"} 1',
        'app_summ{quantile="0.99"} 4',
        'app_summ_sum 20',
        'app_summ_count 10',
        '# HELP app_users users',
        '# TYPE app_users gauge',
        'app_users 3',
        '# HELP dflt_temp temp',
        '# TYPE dflt_temp gauge',
        'dflt_temp -1.5 1700000000123',
        '',
      ].join('\n'),
    );
    // the summary's _min/_max/_avg are Vector's additions, which the linter flags but Prometheus ingests
    const lint = promtoolCheckMetrics(text.split('\n').filter((l) => !/^app_size_(min|max|avg)/.test(l)).join('\n'));
    expect(lint.output).to.not.match(/parsing error/);
    expect(lint.code).to.not.equal(1);
    expect(renderExposition(metrics, { defaultNamespace: 'dflt', buckets: [1], quantiles: [0.5], suppressTimestamp: true })).to.not.match(/ 1700000000123/);
  });

  it('promtool parses the fixture, and refuses what this parser refuses', () => {
    const ok = promtoolCheckMetrics(FIXTURE_TEXT);
    expect(ok.output).to.not.match(/parsing error/);
    expect(ok.code).to.not.equal(1);
    const bad = promtoolCheckMetrics('x{a="1} 2\n');
    expect(bad.output).to.match(/parsing error/);
    expect(() => parseText('x{a="1} 2\n')).to.throw(ParseError);
  });
});
