/** Tick semantics of the metric subscriptions in virtual time. */
import { expect } from 'chai';
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { checkInterval, componentThroughputs$, componentTotals$, globalThroughput$, perSeries$, samples$, sentThroughputsWithOutputs$, sentTotalsWithOutputs$ } from '../../../lib/api/ticks.js';

const tags = (id: string, extra: Record<string, string> = {}) => ({ component_id: id, component_kind: 'source', component_type: 't', ...extra });

describe('management API ticks', () => {
  let rx: TestScheduler;
  let reg: MetricsRegistry;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
    reg = new MetricsRegistry({});
  });

  it('totals: first tick at once with every component, then a component only when its sum grew', () =>
    rx.run(({ expectObservable }) => {
      const a = reg.counter('component_received_events_total', tags('a'));
      const a2 = reg.counter('component_received_events_total', tags('a', { extra: 'x' }));
      const b = reg.counter('component_received_events_total', tags('b'));
      reg.counter('component_received_events_total', tags('zero'));
      a.add(2);
      a2.add(1);
      b.add(1);
      rx.schedule(() => a.add(4), 15); // between ticks 10 and 20
      const out$ = componentTotals$(samples$(reg, 10, rx), (c) => c.values.get('component_received_events_total'));
      const view = (l: { componentId: string; value: number }[]) => l.map((x) => `${x.componentId}=${x.value}`).join(',');
      const values = { x: 'a=3,b=1,zero=0', y: '', z: 'a=7' };
      // `zero` is reported once, on its first tick (the first report always goes out, as in Vector)
      expectObservable(out$.pipe(map(view)), '^ 35ms !').toBe('x 9ms y 9ms z 9ms y', values);
    }));

  it('throughputs: the first tick is skipped; then the growth per interval for every component', () =>
    rx.run(({ expectObservable }) => {
      const a = reg.counter('component_sent_bytes_total', tags('a'));
      a.add(100);
      rx.schedule(() => a.add(30), 5);
      rx.schedule(() => a.add(12), 25);
      rx.schedule(() => reg.counter('component_sent_bytes_total', tags('late')).add(7), 15);
      const out$ = componentThroughputs$(samples$(reg, 10, rx), (c) => c.values.get('component_sent_bytes_total'));
      expectObservable(out$, '^ 35ms !').toBe('10ms p 9ms q 9ms r', {
        p: [{ componentId: 'a', throughput: 30 }],
        q: [
          { componentId: 'a', throughput: 0 },
          { componentId: 'late', throughput: 7 },
        ],
        r: [
          { componentId: 'a', throughput: 12 },
          { componentId: 'late', throughput: 0 },
        ],
      });
    }));

  it('sent totals and throughputs per output', () =>
    rx.run(({ expectObservable }) => {
      const d = reg.counter('component_sent_events_total', tags('r', { output: '_default' }));
      const e = reg.counter('component_sent_events_total', tags('r', { output: 'errors' }));
      d.add(5);
      rx.schedule(() => e.add(2), 5);
      const at = (ms: number) => new Date(ms);
      expectObservable(sentTotalsWithOutputs$(samples$(reg, 10, rx)), '^ 15ms !').toBe('a 9ms b', {
        a: [{ componentId: 'r', value: 5, at: at(0), outputs: [{ outputId: '_default', value: 5 }, { outputId: 'errors', value: 0 }] }],
        b: [{ componentId: 'r', value: 7, at: at(10), outputs: [{ outputId: 'errors', value: 2 }] }],
      });
      expectObservable(sentThroughputsWithOutputs$(samples$(reg, 10, rx)), '^ 15ms !').toBe('10ms b', {
        b: [{ componentId: 'r', throughput: 2, outputs: [{ outputId: '_default', throughput: 0 }, { outputId: 'errors', throughput: 2 }] }],
      });
    }));

  it('errors totals sum every *_errors_total of a component', () =>
    rx.run(({ expectObservable }) => {
      reg.counter('component_errors_total', tags('a', { error_type: 'x' })).add(1);
      reg.counter('decode_errors_total', tags('a')).add(2);
      reg.counter('component_received_events_total', tags('a')).add(9);
      expectObservable(componentTotals$(samples$(reg, 10, rx), (c) => c.errors), '^ 5ms !').toBe('a', { a: [{ componentId: 'a', value: 3, at: new Date(0) }] });
    }));

  it('per-series and deprecated global streams', () =>
    rx.run(({ expectObservable }) => {
      const x = reg.counter('component_received_events_total', tags('a'));
      reg.counter('component_received_events_total', tags('b')).add(1);
      x.add(1);
      rx.schedule(() => x.add(5), 3);
      expectObservable(perSeries$(reg, 10, rx, (n) => n === 'component_received_events_total'), '^ 5ms !').toBe('(ab)', { a: { value: 1, at: new Date(0) }, b: { value: 1, at: new Date(0) } });
      expectObservable(globalThroughput$(reg, 10, rx, 'component_received_events_total'), '^ 15ms !').toBe('10ms a', { a: 5 });
    }));

  it('checks interval bounds (10..60000 ms)', () => {
    expect(() => checkInterval(9)).to.throw('interval must be between 10 and 60000 milliseconds, got 9');
    expect(() => checkInterval(60_001)).to.throw();
    expect(() => checkInterval(10)).to.not.throw();
  });
});
