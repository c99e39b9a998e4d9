import { expect } from 'chai';
import { map, type OperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { transforms } from '../../../connectors/compose.js';
import { type EventBatch, EventMetadata, LogEvent, MetricEvent, type RoutedBatch, BatchNotifier, attachNotifier, type DeliveryStatus } from '../../../lib/event.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';

const log = (m: string) => new LogEvent({ message: m }, new EventMetadata('s', 't'));
const metric = (n: string) => new MetricEvent(n, 'absolute', { type: 'counter', value: 1 }, new EventMetadata('s', 't'));
const names = (b: EventBatch) => b.map((e) => (e.type === 'log' ? e.fields.message : e.name));

describe('filter and route transforms', () => {
  let rx: TestScheduler;
  beforeEach(() => (rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    })));

  it('filter keeps matching events, drops empty batches, counts intentional discards', () => {
    const registry = new MetricsRegistry();
    rx.run(({ cold, expectObservable }) => {
      const op = transforms.filter!({ condition: { type: 'is_log' } }, { registry, id: 'f' }) as OperatorFunction<EventBatch, EventBatch>;
      const input = cold('a-b-c|', { a: [log('1'), metric('m1')], b: [metric('m2')], c: [log('2')] });
      expectObservable(input.pipe(op, (s) => s.pipe(mapNames()))).toBe('a---c|', { a: ['1'], c: ['2'] });
    });
    expect(registry.sum('component_discarded_events_total', { component_id: 'f', intentional: 'true' })).to.equal(2);
  });

  it('filter settles dropped events as delivered (acknowledged to the source)', () => {
    const op = transforms.filter!({ condition: { type: 'is_metric' } }) as OperatorFunction<EventBatch, EventBatch>;
    const seen: DeliveryStatus[] = [];
    const batch = [log('x')];
    attachNotifier(batch, new BatchNotifier((s) => seen.push(s)));
    rx.run(({ cold, expectObservable }) => {
      expectObservable(cold('a|', { a: batch }).pipe(op)).toBe('-|');
    });
    expect(seen).to.deep.equal(['delivered']);
  });

  it('route sends each event to every matching output and the rest to _unmatched', () => {
    rx.run(({ cold, expectObservable }) => {
      const op = transforms.route!({ route: { logs: { type: 'is_log' }, all_logs: { type: 'is_log' }, metrics: { type: 'is_metric' } } }) as OperatorFunction<EventBatch, RoutedBatch>;
      const input = cold('a-----|', { a: [log('1'), metric('m')] });
      const out = input.pipe(op, (s) => s.pipe(mapRouted()));
      expectObservable(out).toBe('(xyz)-|', { x: 'logs:1', y: 'all_logs:1', z: 'metrics:m' });
    });
  });

  it('route with reroute_unmatched = false drops what matches nothing', () => {
    rx.run(({ cold, expectObservable }) => {
      const op = transforms.route!({ route: { metrics: { type: 'is_metric' } }, reroute_unmatched: false }) as OperatorFunction<EventBatch, RoutedBatch>;
      expectObservable(cold('a|', { a: [log('1')] }).pipe(op)).toBe('-|');
      const op2 = transforms.route!({ route: { metrics: { type: 'is_metric' } } }) as OperatorFunction<EventBatch, RoutedBatch>;
      expectObservable(cold('a|', { a: [log('1')] }).pipe(op2, (s) => s.pipe(mapRouted()))).toBe('a|', { a: '_unmatched:1' });
    });
  });

  it('route copies an event matched twice, so outputs never share an object', () => {
    const op = transforms.route!({ route: { a: { type: 'is_log' }, b: { type: 'is_log' } } }) as OperatorFunction<EventBatch, RoutedBatch>;
    const got: RoutedBatch[] = [];
    rx.run(({ cold }) => {
      cold('a|', { a: [log('1')] }).pipe(op).subscribe((r) => got.push(r));
    });
    expect(got[0]!.events[0]).to.not.equal(got[1]!.events[0]);
  });
});

function mapNames(): OperatorFunction<EventBatch, unknown> {
  return map(names);
}
function mapRouted(): OperatorFunction<RoutedBatch, string> {
  return map((r) => `${r.output}:${names(r.events).join(',')}`);
}
