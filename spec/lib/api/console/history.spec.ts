import { expect } from 'chai';
import { RateHistory } from '../../../../lib/api/console/history.js';
import { MetricsRegistry } from '../../../../lib/telemetry/registry.js';

describe('web console: the rate history', () => {
  it('turns totals sampled a second apart into rates per component, per output, and errors', () => {
    const registry = new MetricsRegistry({});
    const ok = registry.counter('component_sent_events_total', { component_id: 'split', output: 'ok' });
    const rest = registry.counter('component_sent_events_total', { component_id: 'split', output: '_unmatched' });
    const errors = registry.counter('component_errors_total', { component_id: 'split' });
    const history = new RateHistory();
    history.record(registry, 10_000, new Map());
    ok.add(4);
    rest.add(2);
    errors.add(1);
    history.record(registry, 11_000, new Map([['split', 0.25]]));
    ok.add(8);
    history.record(registry, 13_000, new Map());
    const h = history.read();
    expect(h.timestamps).to.deep.equal([11, 13]);
    const split = h.components.find((c) => c.componentId === 'split')!;
    expect(split.sent).to.deep.equal([6, 4]);
    expect(split.errors).to.deep.equal([1, 0]);
    expect(split.fill).to.deep.equal([0.25, null]);
    expect(Object.fromEntries(split.outputs.map((o) => [o.outputId, o.sent]))).to.deep.equal({ ok: [4, 4], _unmatched: [2, 0] });
    expect({ sent: split.sentTotal, errors: split.errorsTotal }).to.deep.equal({ sent: 14, errors: 1 });
  });

  it('keeps the newest samples, oldest first, once the ring is full; a component that appeared later reads null before', () => {
    const registry = new MetricsRegistry({});
    const sent = registry.counter('component_sent_events_total', { component_id: 'a' });
    const history = new RateHistory(3);
    for (let i = 0; i < 5; i++) {
      sent.add(i);
      if (i === 3) registry.counter('component_sent_events_total', { component_id: 'b' }).add(1);
      history.record(registry, i * 1000, new Map());
    }
    const h = history.read();
    expect(h.timestamps).to.deep.equal([3, 4]);
    expect(h.components.find((c) => c.componentId === 'a')!.sent).to.deep.equal([3, 4]);
    expect(h.components.find((c) => c.componentId === 'b')!.sent).to.deep.equal([null, 0]);
  });
});
