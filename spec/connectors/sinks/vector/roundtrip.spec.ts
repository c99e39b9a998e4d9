/**
 * weir's `vector` sink into weir's `vector` source over real gRPC: every value kind and metric
 * kind arrives with its exact type, gzip included; while the source's output is closed the sink's
 * pushes are held unanswered, and once it opens everything arrives exactly once.
 */
import { expect } from 'chai';
import { Subject, lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { VectorSinkConfig, buildVectorSink } from '../../../../connectors/sinks/vector/index.js';
import { type Delivery, type EventBatch, EventMetadata, LogEvent, MetricEvent, type MetricValue, logEvent } from '../../../../lib/event.js';
import { Float, Timestamp, type ObjectValue, valueEquals } from '../../../../lib/value.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { type RunningVectorSource, startVectorSource } from '../../sources/vector/vector-context.js';

const sinkConfig = (port: number, extra: Record<string, unknown> = {}) => v.parse(VectorSinkConfig, { type: 'vector', inputs: ['in'], address: `127.0.0.1:${port}`, ...extra });

describe('vector sink -> vector source', function () {
  this.timeout(60_000);
  let s: RunningVectorSource;
  afterEach(async () => {
    await s?.stop();
  });

  for (const compression of ['none', 'gzip']) {
    it(`every value and metric kind keeps its exact type (compression ${compression})`, async () => {
      s = await startVectorSource();
      const fields: ObjectValue = {
        message: 'héllo',
        int: -42,
        float: new Float(2),
        yes: true,
        nothing: null,
        timestamp: new Timestamp(1_700_000_000_123, 456_789),
        source_type: 'demo',
        map: { a: [1, new Float(1.5), 'x', { b: null }] },
      };
      const values: MetricValue[] = [
        { type: 'counter', value: 1 },
        { type: 'gauge', value: -2.5 },
        { type: 'set', values: ['a'] },
        { type: 'distribution', samples: [{ value: 1, rate: 2 }], statistic: 'summary' },
        { type: 'aggregated_histogram', buckets: [{ upper_limit: Infinity, count: 3 }], count: 3, sum: 1 },
        { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1 }], count: 3, sum: 1 },
      ];
      const metrics = values.map((value, i) => new MetricEvent(`m${i}`, 'absolute', value, new EventMetadata('a', 'b'), 'ns', { t: ['x', null] }, new Timestamp(1000, 1), 10));
      const ds = await lastValueFrom(of([new LogEvent(fields, new EventMetadata('a', 'b')), ...metrics]).pipe(buildVectorSink(sinkConfig(s.port, { compression }), testSinkContext('vector')), toArray()));
      expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
      const [log, ...ms] = s.events() as [LogEvent, ...MetricEvent[]];
      expect(valueEquals(log.fields, fields), JSON.stringify(log.fields)).to.equal(true);
      ms.forEach((m, i) => {
        expect(m.value).to.deep.equal(values[i]);
        expect({ kind: m.kind, namespace: m.namespace, tags: m.tags, intervalMs: m.intervalMs }).to.deep.equal({ kind: 'absolute', namespace: 'ns', tags: { t: ['x', null] }, intervalMs: 10 });
        expect(m.timestamp!.equals(new Timestamp(1000, 1))).to.equal(true);
      });
    });
  }

  it('a closed output holds the sink’s pushes unanswered; once open, every event arrives once', async () => {
    s = await startVectorSource({ acknowledgements: true });
    s.gate.close();
    const input = new Subject<EventBatch>();
    const deliveries: Delivery[] = [];
    const done = lastValueFrom(input.pipe(buildVectorSink(sinkConfig(s.port, { batch: { max_events: 100 }, request: { concurrency: 2 } }), testSinkContext('vector')), toArray())).then((d) => deliveries.push(...d));
    const N = 1000;
    input.next(Array.from({ length: N }, (_, i) => logEvent({ message: String(i) })));
    input.complete();
    await until(() => s.metric('component_received_bytes_total', { protocol: 'grpc' }) > 0, 10_000, 'a push');
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(s.events()).to.have.length(0);
    expect(deliveries).to.have.length(0);
    s.gate.open();
    // deliver downstream as the events arrive, so the held answers can go out
    const settler = setInterval(() => s.settle('delivered'), 5);
    await done;
    clearInterval(settler);
    const seen = s.events().map((e) => Number((e as LogEvent).fields.message));
    expect(seen).to.have.length(N);
    expect(new Set(seen).size).to.equal(N);
    expect(deliveries.reduce((n, d) => n + (d.status === 'delivered' ? d.events.length : 0), 0)).to.equal(N);
  });
});
