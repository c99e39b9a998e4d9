import { expect } from 'chai';
import { of } from 'rxjs';
import type { EventBatch } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type Influxdb1, sharedInfluxdb1 } from '../../../peers/influxdb1.js';
import { T0, counter, fast, gauge, metric, runSink, tsdbConfig, uniqueName } from './harness.js';

const T0N = 1_700_000_000_000_000_011n;

describe('connectors/sinks/tsdb_metrics: generation 1 against a real InfluxDB 1.x', function () {
  let influx: Influxdb1;
  let db: string;
  before(async () => {
    influx = await sharedInfluxdb1();
    db = uniqueName('weir_tsdb');
    await influx.createDatabase(db);
  });

  const write = async (events: EventBatch, extra: Record<string, unknown> = {}) => {
    const ctx = testSinkContext('tsdb_metrics');
    const ds = await runSink(fast(tsdbConfig(influx.url, { database: db, ...extra }), { retry_attempts: 0 }), of(events), ctx);
    return { ds, ctx };
  };

  it('writes every metric kind; InfluxQL reads back the fields, tags and nanosecond times', async () => {
    const { ds } = await write([
      counter('requests', 3, { namespace: 'app', tags: { host: 'a' } }),
      gauge('temperature', -1.5, { namespace: 'app', kind: 'absolute' }),
      metric('users', { type: 'set', values: ['alice', 'bob'] }, { namespace: 'app' }),
      metric('latency', { type: 'aggregated_histogram', buckets: [{ upper_limit: 0.5, count: 2 }, { upper_limit: Infinity, count: 5 }], count: 5, sum: 2.25 }, { namespace: 'app', kind: 'absolute' }),
      metric('rtt', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1.5 }, { quantile: 0.99, value: 3 }], count: 10, sum: 20 }, { namespace: 'app', kind: 'absolute' }),
      metric('size', { type: 'distribution', samples: [{ value: 1, rate: 2 }, { value: 3, rate: 2 }], statistic: 'histogram' }, { namespace: 'app' }),
    ]);
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 6]]);
    expect(await influx.select(db, 'app.requests')).to.deep.equal([{ time: T0N, host: 'a', metric_type: 'counter', value: 3 }]);
    expect(await influx.select(db, 'app.temperature')).to.deep.equal([{ time: T0N, metric_type: 'gauge', value: -1.5 }]);
    expect(await influx.select(db, 'app.users')).to.deep.equal([{ time: T0N, metric_type: 'set', value: 2 }]);
    expect(await influx.select(db, 'app.latency')).to.deep.equal([{ time: T0N, 'bucket_0.5': 2, bucket_inf: 5, count: 5, metric_type: 'histogram', sum: 2.25 }]);
    expect(await influx.select(db, 'app.rtt')).to.deep.equal([{ time: T0N, count: 10, metric_type: 'summary', 'quantile_0.5': 1.5, 'quantile_0.99': 3, sum: 20 }]);
    expect(await influx.select(db, 'app.size')).to.deep.equal([{ time: T0N, avg: 2, count: 4, max: 3, median: 1, metric_type: 'distribution', min: 1, 'quantile_0.95': 3, sum: 8 }]);
    // histogram counts went in as integers (`i`), not floats: the server would refuse `u` here
    const [types] = await influx.query('SHOW FIELD KEYS FROM "app.latency"', { db });
    expect(types!.series![0]!.values).to.deep.include.members([['bucket_0.5', 'integer'], ['count', 'integer'], ['sum', 'float']]);
  });

  it('names with spaces, commas and equals signs and backslashes arrive as written', async () => {
    await write([counter('my metric,x', 1, { namespace: 'n=s', tags: { 'k y': 'a,b=c d', path: 'C:\\x' } })]);
    expect(await influx.select(db, 'n=s.my metric,x')).to.deep.equal([{ time: T0N, 'k y': 'a,b=c d', metric_type: 'counter', path: 'C:\\x', value: 1 }]);
  });

  it('absolute counters arrive as deltas; gauges as totals; a batch of only first values is not written', async () => {
    const abs = (v: number, ms: number) => counter('total', v, { kind: 'absolute', timestamp: new Timestamp(T0.ms + ms, 0) });
    const inc = (v: number, ms: number) => gauge('level', v, { timestamp: new Timestamp(T0.ms + ms, 0) });
    const first = await write([abs(100, 0)], { batch: { max_events: 1 } });
    expect(first.ds.map((d) => d.status)).to.deep.equal(['delivered']);
    // one sink instance keeps the reference between batches
    const { ds } = await write([abs(100, 0), abs(130, 1000), abs(175, 2000), inc(2, 0), inc(3, 1000)], { batch: { max_events: 1 } });
    expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
    expect((await influx.select(db, 'total')).map((r) => r.value)).to.deep.equal([30, 45]);
    expect((await influx.select(db, 'level')).map((r) => r.value)).to.deep.equal([2, 5]);
  });

  it('retention_policy_name writes into that policy; consistency is accepted; an unknown policy fails the write', async () => {
    await influx.query(`CREATE RETENTION POLICY "weir_rp" ON "${db}" DURATION 1000w REPLICATION 1`);
    const { ds } = await write([counter('in_rp', 7)], { retention_policy_name: 'weir_rp', consistency: 'all' });
    expect(ds[0]!.status).to.equal('delivered');
    const [r] = await influx.query(`SELECT value FROM "${db}"."weir_rp"."in_rp"`, { db });
    expect(r!.series![0]!.values).to.deep.equal([['2023-11-14T22:13:20.000000011Z', 7]]);
    const [dflt] = await influx.query('SELECT value FROM "in_rp"', { db });
    expect(dflt!.series).to.equal(undefined); // not in the default policy
    const failed = await write([counter('x', 1)], { retention_policy_name: 'missing_rp' });
    expect(failed.ds[0]!.status).to.not.equal('delivered');
  });

  it('encoding.timestamp_format = "unix" writes seconds with precision=s', async () => {
    await write([counter('secs', 1, { timestamp: new Timestamp(1_700_000_000_999, 5) })], { encoding: { timestamp_format: 'unix' } });
    expect(await influx.select(db, 'secs')).to.deep.equal([{ time: 1_700_000_000_000_000_000n, metric_type: 'counter', value: 1 }]);
    await write([counter('micros', 1, { timestamp: new Timestamp(1_700_000_000_999, 5_500) })], { encoding: { timestamp_format: 'unix_us' } });
    expect((await influx.select(db, 'micros'))[0]!.time).to.equal(1_700_000_000_999_005_000n);
  });

  it('a write to a missing database is rejected (404), not retried', async () => {
    const ctx = testSinkContext('tsdb_metrics');
    const ds = await runSink(fast(tsdbConfig(influx.url, { database: uniqueName('absent') })), of([counter('x', 1)]), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  describe('with auth-enabled', () => {
    let secure: Influxdb1;
    let sdb: string;
    before(async () => {
      secure = await sharedInfluxdb1({ auth: true });
      sdb = uniqueName('weir_auth');
      await secure.createDatabase(sdb);
    });

    it('username and password are sent as u and p: delivered and readable', async () => {
      const { username, password } = secure.credentials!;
      const ds = await runSink(fast(tsdbConfig(secure.url, { database: sdb, username, password })), of([counter('authed', 1)]));
      expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
      expect((await secure.select(sdb, 'authed')).map((r) => r.value)).to.deep.equal([1]);
    });

    it('without credentials or with a wrong password: 401, rejected, not retried', async () => {
      for (const creds of [{}, { username: 'admin', password: 'wrong' }]) {
        const ctx = testSinkContext('tsdb_metrics');
        const ds = await runSink(fast(tsdbConfig(secure.url, { database: sdb, ...creds })), of([counter('denied', 1)]), ctx);
        expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
        expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
      }
      expect(await secure.select(sdb, 'denied')).to.deep.equal([]);
    });
  });
});
