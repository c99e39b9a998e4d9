import { expect } from 'chai';
import { type SchedulerLike, asyncScheduler, lastValueFrom, of, toArray } from 'rxjs';
import { BatchNotifier, type DeliveryStatus, type Event, type EventBatch, EventMetadata, MetricEvent, attachNotifier, logEvent, settleAll } from '../../../lib/event.js';
import { Float, type ObjectValue, Timestamp } from '../../../lib/value.js';
import { type MetricFailure, type MetricSpec, compileLogToMetric, logToMetric, numberOf } from '../../../operators/transforms/log_to_metric/index.js';
import { buildLogToMetric, logToMetricTransform } from '../../../connectors/transforms/log_to_metric/index.js';
import { configIssues, parseConfig, transformContext } from '../../connectors/transforms/context.js';

const T = Timestamp.parse('2018-11-14T08:09:10.000000011Z')!;
const NOW_MS = 1_700_000_000_000;
const clock: SchedulerLike = { now: () => NOW_MS, schedule: asyncScheduler.schedule.bind(asyncScheduler) };

/** Runs one event through the metrics; returns the metrics as Vector JSON and the failures. */
function run(metrics: MetricSpec[], fields: ObjectValue): { out: unknown[]; failures: string[] } {
  const failures: string[] = [];
  const convert = compileLogToMetric({
    metrics,
    scheduler: clock,
    timezone: 'UTC',
    events: {
      failed: (f: MetricFailure) => failures.push(`${f.reason}:${'field' in f ? f.field : f.option}`),
      tagFailed: (tag) => failures.push(`tag:${tag}`),
    },
  });
  const out = convert([logEvent(fields)]).map((e) => (e as MetricEvent).toJSON());
  return { out, failures };
}

const ts = T.toString();
const at = { timestamp: T };

describe('operators/transforms/log_to_metric', () => {
  describe('one event, one row: metrics made and failures reported', () => {
    const cases: [string, MetricSpec[], ObjectValue, unknown[], string[]][] = [
      ['a counter counts the event', [{ type: 'counter', field: 'status' }], { status: '42', ...at }, [{ name: 'status', timestamp: ts, kind: 'incremental', counter: { value: 1 } }], []],
      [
        'name, namespace and tags; a tag whose field is missing is left out',
        [{ type: 'counter', field: 'message', name: 'http_requests_total', namespace: 'app', tags: { method: '{{method}}', code: '{{ code }}', missing_tag: '{{unknown}}', host: 'localhost' } }],
        { message: 'i am log', method: 'post', code: 200, ...at },
        [{ name: 'http_requests_total', namespace: 'app', tags: { method: 'post', code: '200', host: 'localhost' }, timestamp: ts, kind: 'incremental', counter: { value: 1 } }],
        ['tag:missing_tag'],
      ],
      ['increment_by_value adds the parsed number', [{ type: 'counter', field: 'amount', name: 'amount_total', incrementByValue: true }], { amount: '33.99', ...at }, [{ name: 'amount_total', timestamp: ts, kind: 'incremental', counter: { value: 33.99 } }], []],
      ['an absolute counter', [{ type: 'counter', field: 'amount', incrementByValue: true, kind: 'absolute' }], { amount: 5, ...at }, [{ name: 'amount', timestamp: ts, kind: 'absolute', counter: { value: 5 } }], []],
      ['increment_by_value on a non-number makes nothing', [{ type: 'counter', field: 'status', incrementByValue: true }], { status: 'not a number', ...at }, [], ['not_a_number:status']],
      ['a missing field makes nothing', [{ type: 'counter', field: 'status' }], { other: '42', ...at }, [], ['field_missing:status']],
      ['a null field makes nothing', [{ type: 'counter', field: 'status' }], { status: null, ...at }, [], ['field_null:status']],
      ['a gauge is absolute and reads numeric text', [{ type: 'gauge', field: 'memory_rss', name: 'memory_rss_bytes' }], { memory_rss: '123', ...at }, [{ name: 'memory_rss_bytes', timestamp: ts, kind: 'absolute', gauge: { value: 123 } }], []],
      ['a gauge takes integers and floats as they are', [{ type: 'gauge', field: 'i' }, { type: 'gauge', field: 'f' }], { i: 7, f: new Float(2), ...at }, [{ name: 'i', timestamp: ts, kind: 'absolute', gauge: { value: 7 } }, { name: 'f', timestamp: ts, kind: 'absolute', gauge: { value: 2 } }], []],
      ['a gauge of a boolean is an error', [{ type: 'gauge', field: 'ok' }], { ok: true, ...at }, [], ['not_a_number:ok']],
      ['a set holds the text of the value', [{ type: 'set', field: 'user_ip', name: 'unique_user_ip' }], { user_ip: '1.2.3.4', ...at }, [{ name: 'unique_user_ip', timestamp: ts, kind: 'incremental', set: { values: ['1.2.3.4'] } }], []],
      ['a set of a number holds its text', [{ type: 'set', field: 'code' }], { code: 42, ...at }, [{ name: 'code', timestamp: ts, kind: 'incremental', set: { values: ['42'] } }], []],
      ['a histogram is a one-sample distribution', [{ type: 'histogram', field: 'response_time' }], { response_time: '2.5', ...at }, [{ name: 'response_time', timestamp: ts, kind: 'incremental', distribution: { samples: [{ value: 2.5, rate: 1 }], statistic: 'histogram' } }], []],
      ['a summary is a one-sample distribution with the summary statistic', [{ type: 'summary', field: 'response_time' }], { response_time: 2.5, ...at }, [{ name: 'response_time', timestamp: ts, kind: 'incremental', distribution: { samples: [{ value: 2.5, rate: 1 }], statistic: 'summary' } }], []],
      ['a histogram of text that is not a number is an error', [{ type: 'histogram', field: 'response_time' }], { response_time: 'fast', ...at }, [], ['not_a_number:response_time']],
      [
        'each metric stands alone: a failing one does not stop the next',
        [{ type: 'counter', field: 'status' }, { type: 'counter', field: 'backtrace', name: 'exception_total' }],
        { backtrace: 'message', ...at },
        [{ name: 'exception_total', timestamp: ts, kind: 'incremental', counter: { value: 1 } }],
        ['field_missing:status'],
      ],
      [
        'templated names and namespaces',
        [{ type: 'set', field: 'status', name: '{{host}}_{{worker}}_status_set' }, { type: 'counter', field: 'backtrace', name: '{{service}}_exception_total', namespace: '{{host}}' }],
        { status: '42', backtrace: 'message', host: 'local', worker: 'abc', service: 'xyz', ...at },
        [
          { name: 'local_abc_status_set', timestamp: ts, kind: 'incremental', set: { values: ['42'] } },
          { name: 'xyz_exception_total', namespace: 'local', timestamp: ts, kind: 'incremental', counter: { value: 1 } },
        ],
        [],
      ],
      ['a name that does not render makes nothing', [{ type: 'counter', field: 'status', name: '{{ service }}_total' }], { status: 1, ...at }, [], ['template_failed:name']],
      ['a namespace that does not render makes nothing', [{ type: 'counter', field: 'status', namespace: '{{ team }}' }], { status: 1, ...at }, [], ['template_failed:namespace']],
      ['without a timestamp field the metric gets the clock time', [{ type: 'counter', field: 'status' }], { status: 1 }, [{ name: 'status', timestamp: new Timestamp(NOW_MS).toString(), kind: 'incremental', counter: { value: 1 } }], []],
      ['a timestamp field that is text is not a timestamp', [{ type: 'counter', field: 'status' }], { status: 1, timestamp: '2020-01-01T00:00:00Z' }, [{ name: 'status', timestamp: new Timestamp(NOW_MS).toString(), kind: 'incremental', counter: { value: 1 } }], []],
      ['a nested field path; the default name is the path as written', [{ type: 'gauge', field: 'http.latency' }], { http: { latency: '0.25' }, ...at }, [{ name: 'http.latency', timestamp: ts, kind: 'absolute', gauge: { value: 0.25 } }], []],
      [
        'a list makes a multi-valued tag, null a bare value, repeats count once',
        [{ type: 'counter', field: 'message', tags: { tag: ['one', null, 'two', 'one'], bare: null } }],
        { message: 'x', ...at },
        [{ name: 'message', tags: { tag: ['one', null, 'two'], bare: null }, timestamp: ts, kind: 'incremental', counter: { value: 1 } }],
        [],
      ],
      ['float text as Rust reads it: exponent and infinity', [{ type: 'gauge', field: 'a' }, { type: 'gauge', field: 'b' }], { a: '1e3', b: '-inf', ...at }, [{ name: 'a', timestamp: ts, kind: 'absolute', gauge: { value: 1000 } }, { name: 'b', timestamp: ts, kind: 'absolute', gauge: { value: -Infinity } }], []],
      ['padded or hex text is not a number', [{ type: 'gauge', field: 'a' }, { type: 'gauge', field: 'b' }], { a: ' 2', b: '0x10', ...at }, [], ['not_a_number:a', 'not_a_number:b']],
    ];
    for (const [name, metrics, fields, expected, failures] of cases) {
      it(name, () => {
        const r = run(metrics, fields);
        expect(r.out).to.deep.equal(expected);
        expect(r.failures).to.deep.equal(failures);
      });
    }
  });

  it('reads numbers with the f64 grammar', () => {
    expect([numberOf('2'), numberOf('+2.'), numberOf('.5'), numberOf('1E-2'), numberOf('Infinity'), numberOf('1_000'), numberOf(''), numberOf('true'), numberOf(false)]).to.deep.equal([
      2,
      2,
      0.5,
      0.01,
      Infinity,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(numberOf('NaN')).to.be.NaN;
  });

  it('never emits an empty batch, keeps event order and passes metrics through', async () => {
    const passing = new MetricEvent('already', 'absolute', { type: 'gauge', value: 1 }, new EventMetadata('s', 't'));
    const batches: EventBatch[] = [[logEvent({ other: 1 })], [logEvent({ n: 1 }), passing, logEvent({ n: 2 })]];
    const out = await lastValueFrom(of(...batches).pipe(logToMetric({ metrics: [{ type: 'gauge', field: 'n' }], scheduler: clock }), toArray()));
    expect(out).to.have.length(1);
    expect(out[0]!.map((e) => (e.type === 'metric' && e.value.type === 'gauge' ? `${e.name}=${e.value.value}` : e.type))).to.deep.equal(['n=1', 'already=1', 'n=2']);
  });

  describe('acknowledgements', () => {
    const withNotifier = (events: EventBatch) => {
      const seen: DeliveryStatus[] = [];
      attachNotifier(events, new BatchNotifier((s) => seen.push(s)));
      return seen;
    };

    it('an event that made no metric is settled at once as delivered', () => {
      const events = [logEvent({ other: 1 })];
      const seen = withNotifier(events);
      const out = compileLogToMetric({ metrics: [{ type: 'counter', field: 'status' }], scheduler: clock })(events);
      expect(out).to.deep.equal([]);
      expect(seen).to.deep.equal(['delivered']);
    });

    it('every metric of an event holds a claim: the source hears back after the last one settles', () => {
      const events = [logEvent({ a: 1, b: 2 })];
      const seen = withNotifier(events);
      const out = compileLogToMetric({ metrics: [{ type: 'gauge', field: 'a' }, { type: 'gauge', field: 'missing' }, { type: 'gauge', field: 'b' }], scheduler: clock })(events);
      expect(out).to.have.length(2);
      settleAll([out[0]!], 'delivered');
      expect(seen).to.deep.equal([]);
      settleAll([out[1]!], 'rejected');
      expect(seen).to.deep.equal(['rejected']);
    });
  });
});

describe('connectors/transforms/log_to_metric', () => {
  it('applies the defaults: counters count by one, incrementally', () => {
    const c = parseConfig(logToMetricTransform, { metrics: [{ type: 'counter', field: 'status' }] });
    expect(c.metrics[0]).to.deep.equal({ type: 'counter', field: 'status', increment_by_value: false, kind: 'incremental' });
  });

  it('rejects bad options with their path', () => {
    expect(configIssues(logToMetricTransform, { metrics: [] })).to.deep.equal(['metrics: must list at least one metric']);
    expect(configIssues(logToMetricTransform, { metrics: [{ type: 'gauge', field: 'a', increment_by_value: true }] })[0]).to.match(/^metrics\.0\.increment_by_value: /);
    expect(configIssues(logToMetricTransform, { metrics: [{ type: 'gauge', field: 'a', kind: 'absolute' }] })[0]).to.match(/^metrics\.0\.kind: /);
    expect(configIssues(logToMetricTransform, { metrics: [{ type: 'timer', field: 'a' }] })[0]).to.match(/^metrics\.0\.type: /);
    expect(configIssues(logToMetricTransform, { metrics: [{ type: 'counter', field: 'a', name: '{{ oops' }] })[0]).to.match(/^metrics\.0\.name: invalid template/);
    expect(configIssues(logToMetricTransform, { metrics: [{ type: 'counter', field: 'a..b' }] })[0]).to.match(/^metrics\.0\.field: /);
    expect(configIssues(logToMetricTransform, { metrics: [{ type: 'counter', field: 'a', tags: { t: 5 } }] })[0]).to.match(/^metrics\.0\.tags\.t: /);
    expect(configIssues(logToMetricTransform, { metrics: [{ type: 'counter' }] })[0]).to.match(/^metrics\.0\.field: /);
  });

  it('declares log input and metric output', () => {
    expect(logToMetricTransform.input).to.equal('log');
    expect(logToMetricTransform.outputs!(parseConfig(logToMetricTransform, { metrics: [{ type: 'counter', field: 'a' }] }))).to.deep.equal([{ type: 'metric' }]);
  });

  it("counts Vector's errors by type and the events that made no metric", async () => {
    const ctx = transformContext('log_to_metric', { scheduler: clock });
    const config = parseConfig(logToMetricTransform, {
      metrics: [
        { type: 'gauge', field: 'v', tags: { t: '{{ missing }}' } },
        { type: 'counter', field: 'n', name: '{{ svc }}' },
      ],
    });
    const batch: Event[] = [logEvent({ v: '1', n: 1, svc: 's' }), logEvent({ v: 'x' }), logEvent({ v: null, n: 2 }), logEvent({})];
    const out = (await lastValueFrom(of<EventBatch>(batch).pipe(buildLogToMetric(config, ctx), toArray()))).flat();
    expect(out.map((e) => (e as MetricEvent).name)).to.deep.equal(['v', 's']);
    const r = ctx.registry;
    expect(r.sum('component_errors_total', { error_type: 'condition_failed', error_code: 'field_not_found' })).to.equal(3);
    expect(r.sum('component_errors_total', { error_type: 'condition_failed', error_code: 'field_null' })).to.equal(1);
    expect(r.sum('component_errors_total', { error_type: 'parser_failed', error_code: 'failed_parsing_float' })).to.equal(1);
    // one tag that did not render (metric kept) and one name that did not render (metric dropped)
    expect(r.sum('component_errors_total', { error_type: 'template_failed' })).to.equal(2);
    expect(r.sum('component_discarded_events_total', { intentional: 'false' })).to.equal(3);
  });
});
