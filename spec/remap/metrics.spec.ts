/** The remap transform on metric events: the writable fields, the read-only value, failures. */
import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { type Event, type EventBatch, EventMetadata, MetricEvent, type RoutedBatch } from '../../lib/event.js';
import { Timestamp } from '../../lib/value.js';
import { remapTransform } from '../../connectors/transforms/remap/index.js';
import { metricToValue } from '../../operators/transforms/remap/metric-target.js';
import { parseConfig, transformContext } from '../connectors/transforms/context.js';

const counter = (): MetricEvent =>
  new MetricEvent('requests', 'incremental', { type: 'counter', value: 3 }, new EventMetadata('in', 'demo'), 'app', { host: 'a', multi: ['x', 'y'] }, new Timestamp(1_700_000_000_000, 0));

async function run(options: Record<string, unknown>, events: Event[]) {
  const ctx = transformContext('remap');
  const out = await lastValueFrom(of(events as EventBatch).pipe(remapTransform.build(parseConfig(remapTransform, options), ctx), toArray()));
  return out.flatMap((b) => (Array.isArray(b) ? b : (b as RoutedBatch).events)) as MetricEvent[];
}

describe('remap transform on metrics', () => {
  it('accepts any event type', () => {
    expect(remapTransform.input).to.equal('any');
  });

  it('shows name, namespace, tags (last value), kind, timestamp, type and the value', () => {
    const v = metricToValue(counter());
    expect(Object.keys(v)).to.deep.equal(['name', 'namespace', 'tags', 'timestamp', 'kind', 'type', 'counter']);
    expect(v.tags).to.deep.equal({ host: 'a', multi: 'y' });
    expect((v.counter as { value: { value: number } }).value.value).to.equal(3);
  });

  it('changes name, namespace, tags, kind and timestamp', async () => {
    const [m] = await run(
      { source: '.name = "hits"; .namespace = null; .tags.env = "prod"; del(.tags.host); .kind = "absolute"; .timestamp = t\'2024-01-01T00:00:00Z\'' },
      [counter()],
    );
    expect(m!.name).to.equal('hits');
    expect(m!.namespace).to.equal(undefined);
    expect(m!.tags).to.deep.equal({ multi: ['x', 'y'], env: 'prod' });
    expect(m!.kind).to.equal('absolute');
    expect(m!.timestamp!.toString()).to.equal('2024-01-01T00:00:00Z');
    expect(m!.value).to.deep.equal({ type: 'counter', value: 3 });
  });

  it('reads the value and routes on it', async () => {
    const small = counter();
    small.value = { type: 'counter', value: 1 };
    const [m, n] = await run({ source: 'v = float(.counter.value) ?? 0.0\nif v > 2.0 { .tags.big = "yes" }' }, [counter(), small]);
    expect(m!.tags!.big).to.equal('yes');
    expect(n!.tags!.big).to.equal(undefined);
  });

  it('fails the event when the program writes the value, an unknown field or a wrong kind', async () => {
    for (const source of ['.counter.value = 5.0', '.foo = 1', '.kind = "sometimes"', '.name = 1', '.tags.x = [1]', '.type = "gauge"', '. = 1']) {
      const [m] = await run({ source, drop_on_error: false }, [counter()]);
      expect(m, source).to.be.instanceOf(MetricEvent);
      expect(m!.name, source).to.equal('requests');
      expect(m!.kind, source).to.equal('incremental');
      expect(m!.value, source).to.deep.equal({ type: 'counter', value: 3 });
      expect(m!.tags, source).to.deep.equal({ host: 'a', multi: ['x', 'y'] });
    }
    expect(await run({ source: '.foo = 1', drop_on_error: true }, [counter()])).to.deep.equal([]);
  });

  it('restores the metadata of a metric whose write-back failed', async () => {
    const m = counter();
    m.meta.value = { keep: 1 };
    const [out] = await run({ source: '%keep = 2; .name = 5', drop_on_error: false }, [m]);
    expect(out!.meta.value).to.deep.equal({ keep: 1 });
  });
});
