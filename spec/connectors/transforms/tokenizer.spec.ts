import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { type EventBatch, LogEvent, logEvent } from '../../../lib/event.js';
import { toJSON } from '../../../lib/value.js';
import { buildTokenizer, tokenizerTransform } from '../../../connectors/transforms/tokenizer/index.js';
import { configIssues, parseConfig, transformContext } from './context.js';

describe('connectors/transforms/tokenizer', () => {
  it('applies the spec defaults: field message, drop_field true', () => {
    const c = parseConfig(tokenizerTransform, { field_names: ['a'] });
    expect(c.field).to.equal('message');
    expect(c.drop_field).to.equal(true);
  });

  it('rejects bad options with their path', () => {
    expect(configIssues(tokenizerTransform, {})).to.satisfy((l: string[]) => l.some((s) => s.startsWith('field_names')));
    expect(configIssues(tokenizerTransform, { field_names: ['a'], types: { a: 'uuid' } })).to.deep.equal(['types.a: unknown conversion name "uuid"']);
    expect(configIssues(tokenizerTransform, { field_names: ['a'], types: { a: 'timestamp|%Q' } })[0]).to.match(/^types\.a: .*unsupported specifier/);
    expect(configIssues(tokenizerTransform, { field_names: ['a..b'] })[0]).to.match(/^field_names\.0: invalid path/);
    expect(configIssues(tokenizerTransform, { field_names: ['a'], timezone: 'Nowhere/City' })[0]).to.match(/^timezone: unknown time zone/);
    expect(configIssues(tokenizerTransform, { field_names: ['a'], bogus: 1 })[0]).to.match(/^bogus/);
  });

  it('reads naive timestamps in the global timezone unless the component sets one', async () => {
    const go = async (opts: Record<string, unknown>, tz: string) => {
      const ctx = transformContext('tokenizer', { timezone: tz });
      const op = buildTokenizer(parseConfig(tokenizerTransform, { field_names: ['t'], types: { t: 'timestamp|%F %T' }, ...opts }), ctx);
      const [out] = await lastValueFrom(of<EventBatch>([logEvent({ message: '"2024-01-15 12:00:00"' })]).pipe(op, toArray()));
      return toJSON((out![0] as LogEvent).fields);
    };
    expect(await go({}, 'Europe/Berlin')).to.deep.equal({ t: '2024-01-15T11:00:00Z' });
    expect(await go({ timezone: 'America/New_York' }, 'Europe/Berlin')).to.deep.equal({ t: '2024-01-15T17:00:00Z' });
  });

  it('counts missing fields and failed conversions (component_errors_total, processing_errors_total)', async () => {
    const ctx = transformContext('tokenizer');
    const op = buildTokenizer(parseConfig(tokenizerTransform, { field_names: ['n'], types: { n: 'int' } }), ctx);
    const batch = [logEvent({ message: 'x' }), logEvent({ message: '1' }), logEvent({ other: 'y' }), logEvent({ message: 'z' })];
    const out = (await lastValueFrom(of<EventBatch>(batch).pipe(op, toArray()))).flat();
    expect(out.map((e) => toJSON((e as LogEvent).fields))).to.deep.equal([{}, { n: 1 }, { other: 'y' }, {}]);
    const r = ctx.registry;
    expect(r.sum('component_errors_total', { error_type: 'conversion_failed', error_code: 'type_conversion' })).to.equal(2);
    expect(r.sum('processing_errors_total', { error_type: 'type_conversion_failed' })).to.equal(2);
    expect(r.sum('component_errors_total', { error_type: 'condition_failed', error_code: 'field_not_found' })).to.equal(1);
    expect(r.sum('processing_errors_total', { error_type: 'missing_field' })).to.equal(1);
    expect(r.sum('processed_events_total', { component_id: 'tokenizer' })).to.equal(4);
    expect(r.sum('processed_bytes_total')).to.be.greaterThan(0);
  });
});
