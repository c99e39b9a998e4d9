import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { transforms } from '../../../connectors/compose.js';
import { type EventBatch, EventMetadata, MetricEvent } from '../../../lib/event.js';

const metric = () => new MetricEvent('m', 'absolute', { type: 'counter', value: 1 }, new EventMetadata('src', 'test'), undefined, { multi: ['a', 'b'], one: 'x', bare: null });

async function run(options: Record<string, unknown>): Promise<MetricEvent> {
  const out = await lastValueFrom(of<EventBatch>([metric()]).pipe(transforms.remap!(options), toArray()));
  return (out.flat() as MetricEvent[])[0]!;
}

describe('remap transform: metric_tag_values', () => {
  it('single (default): the last value of a multi-valued tag; untouched tags keep all their values', async () => {
    const m = await run({ source: '.tags.seen = to_string!(.tags.multi)' });
    expect(m.tags).to.deep.equal({ multi: ['a', 'b'], one: 'x', bare: null, seen: 'b' });
  });

  it('full: every tag as an array; writing an array makes a multi-valued tag', async () => {
    const m = await run({ metric_tag_values: 'full', source: '.tags.seen = encode_json(.tags)\n.tags.more = ["p", "q"]' });
    expect(JSON.parse(m.tags!.seen as string)).to.deep.equal({ multi: ['a', 'b'], one: ['x'], bare: [null] });
    expect(m.tags).to.deep.include({ multi: ['a', 'b'], one: 'x', bare: null, more: ['p', 'q'] });
  });

  it('auto: arrays only for several values', async () => {
    const m = await run({ metric_tag_values: 'auto', source: '.tags.seen = encode_json(.tags)' });
    expect(JSON.parse(m.tags!.seen as string)).to.deep.equal({ multi: ['a', 'b'], one: 'x', bare: null });
  });

  it('runtime "ast" is accepted and runs the program', async () => {
    const m = await run({ runtime: 'ast', source: '.name = "renamed"' });
    expect(m.name).to.equal('renamed');
  });
});
