import { expect } from 'chai';
import { Subject, lastValueFrom, map, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { type EventBatch, type LogEvent, logEvent } from '../../../lib/event.js';
import { ConditionError } from '../../../operators/conditions/index.js';
import { toJSON } from '../../../lib/value.js';
import { buildReduce, reduceTransform } from '../../../connectors/transforms/reduce/index.js';
import { buildThrottle, throttleTransform } from '../../../connectors/transforms/throttle/index.js';
import { configIssues, parseConfig, transformContext } from './context.js';

describe('connectors/transforms/reduce', () => {
  it('applies the spec defaults', () => {
    const c = parseConfig(reduceTransform, {});
    expect(c.expire_after_ms).to.equal(30_000);
    expect(c.flush_period_ms).to.equal(1000);
    expect(c.group_by).to.deep.equal([]);
    expect(c.merge_strategies).to.deep.equal({});
  });

  it('rejects bad options', () => {
    expect(configIssues(reduceTransform, { merge_strategies: { a: 'average' } })[0]).to.match(/^merge_strategies\.a: must be one of/);
    expect(configIssues(reduceTransform, { merge_strategies: { 'a[0]': 'sum' } })[0]).to.match(/array indexes/);
    expect(configIssues(reduceTransform, { starts_when: 'true', ends_when: 'true' })[0]).to.match(/only one of starts_when and ends_when/);
    expect(configIssues(reduceTransform, { flush_period_ms: 0 })[0]).to.match(/^flush_period_ms/);
    expect(configIssues(reduceTransform, { max_events: 3 })[0]).to.match(/^max_events/);
  });

  it('compiles search_query conditions and reports their errors with the option path', () => {
    const ctx = transformContext('reduce');
    const bad = parseConfig(reduceTransform, { ends_when: { type: 'search_query', source: 'status:(' } });
    expect(() => buildReduce(bad, ctx)).to.throw(ConditionError).with.property('optionPath', 'ends_when.source');
  });

  it('merges by group with ends_when and counts stale flushes in virtual time', () => {
    const rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
    const ctx = transformContext('reduce', { scheduler: rx });
    const config = parseConfig(reduceTransform, {
      group_by: ['id'],
      merge_strategies: { msg: 'concat' },
      ends_when: { type: 'search_query', source: '@done:true' },
      expire_after_ms: 5000,
    });
    rx.run(({ hot, expectObservable }) => {
      const input = hot<EventBatch>('a b 8ms c', {
        a: [logEvent({ id: 'x', msg: 'one' }), logEvent({ id: 'y', msg: 'solo' })],
        b: [logEvent({ id: 'x', msg: 'two' })],
        c: [logEvent({ id: 'x', msg: 'three', done: true })],
      });
      const out = input.pipe(buildReduce(config, ctx), map((b) => b.map((e) => toJSON((e as LogEvent).fields))));
      expectObservable(out, '^ 10s !').toBe('10ms x 4989ms y', {
        x: [{ id: 'x', msg: 'one two three', done: true }],
        y: [{ id: 'y', msg: 'solo' }],
      });
    });
    expect(ctx.registry.sum('stale_events_flushed_total', { component_id: 'reduce' })).to.equal(1);
  });

  it('flushes open groups when the input completes', async () => {
    const ctx = transformContext('reduce');
    const op = buildReduce(parseConfig(reduceTransform, { group_by: ['id'] }), ctx);
    const out = (await lastValueFrom(of<EventBatch>([logEvent({ id: 1, n: 1 }), logEvent({ id: 2, n: 1 }), logEvent({ id: 1, n: 1 })]).pipe(op, toArray()))).flat();
    expect(out.map((e) => toJSON((e as LogEvent).fields))).to.deep.equal([{ id: 2, n: 2 }, { id: 2, n: 1 }]);
    expect(ctx.registry.sum('stale_events_flushed_total')).to.equal(0);
  });
});

describe('connectors/transforms/throttle', () => {
  it('applies the defaults and accepts graph attributes', () => {
    const c = parseConfig(throttleTransform, { threshold: 2, window_secs: 1.5, graph: { node_attributes: { color: 'red' } } });
    expect(c.measure_cpu_usage).to.equal(false);
    expect(c.internal_metrics).to.deep.equal({ emit_events_discarded_per_key: false });
  });

  it('rejects zero threshold or window, bad templates and unknown options', () => {
    expect(configIssues(throttleTransform, { threshold: 0, window_secs: 1 })[0]).to.match(/^threshold: threshold must be non-zero/);
    expect(configIssues(throttleTransform, { threshold: 1, window_secs: 0 })[0]).to.match(/^window_secs: window_secs must be non-zero/);
    expect(configIssues(throttleTransform, { threshold: 1 })[0]).to.match(/^window_secs/);
    expect(configIssues(throttleTransform, { threshold: 1, window_secs: 1, key_field: '{{ host' })[0]).to.match(/^key_field: invalid template/);
    expect(configIssues(throttleTransform, { threshold: 1, window_secs: 1, internal_metrics: { other: true } })[0]).to.match(/^internal_metrics\.other/);
  });

  it('counts intentional drops, events_discarded_total with reason, and template errors', () => {
    const ctx = transformContext('throttle', { scheduler: { now: () => 0, schedule: () => { throw new Error('unused'); } } as never });
    const op = buildThrottle(parseConfig(throttleTransform, { threshold: 1, window_secs: 10, key_field: '{{ k }}' }), ctx);
    const input = new Subject<EventBatch>();
    const kept: unknown[] = [];
    input.pipe(op).subscribe((b) => kept.push(...b.map((e) => toJSON((e as LogEvent).fields))));
    input.next([logEvent({ k: 'a' }), logEvent({ k: 'a' }), logEvent({}), logEvent({}), logEvent({ k: 'b' })]);
    expect(kept).to.deep.equal([{ k: 'a' }, {}, { k: 'b' }]);
    const r = ctx.registry;
    expect(r.sum('component_discarded_events_total', { intentional: 'true', component_type: 'throttle' })).to.equal(2);
    expect(r.sum('events_discarded_total', { reason: 'rate_limit_exceeded' })).to.equal(2);
    expect(r.all().filter((s) => s.name === 'events_discarded_total' && 'key' in s.tags)).to.have.length(0);
    expect(r.sum('component_errors_total', { error_type: 'template_failed', stage: 'processing' })).to.equal(2);
  });

  it('tags events_discarded_total with the key when emit_events_discarded_per_key is set', () => {
    const ctx = transformContext('throttle', { scheduler: { now: () => 0, schedule: () => { throw new Error('unused'); } } as never });
    const config = parseConfig(throttleTransform, {
      threshold: 1,
      window_secs: 10,
      key_field: '{{ k }}',
      measure_cpu_usage: true,
      internal_metrics: { emit_events_discarded_per_key: true },
    });
    const input = new Subject<EventBatch>();
    input.pipe(buildThrottle(config, ctx)).subscribe();
    input.next([logEvent({ k: 'a' }), logEvent({ k: 'a' }), logEvent({ k: 'a' }), logEvent({}), logEvent({})]);
    const r = ctx.registry;
    expect(r.sum('events_discarded_total', { key: 'a' })).to.equal(2);
    expect(r.sum('events_discarded_total', { key: 'None' })).to.equal(1);
    expect(r.sum('component_discarded_events_total', { intentional: 'true' })).to.equal(3);
    expect(r.all().some((s) => s.name === 'component_cpu_usage_ns_total' && s.tags.component_kind === 'transform')).to.equal(true);
  });

  it('exclude takes a search_query condition; bad queries name the option', () => {
    const ctx = transformContext('throttle');
    expect(() => buildThrottle(parseConfig(throttleTransform, { threshold: 1, window_secs: 1, exclude: { type: 'search_query', source: '(a' } }), ctx))
      .to.throw(ConditionError)
      .with.property('optionPath', 'exclude.source');
    const ok = buildThrottle(parseConfig(throttleTransform, { threshold: 1, window_secs: 1, exclude: { type: 'is_log' } }), ctx);
    const out: EventBatch[] = [];
    const input = new Subject<EventBatch>();
    input.pipe(ok).subscribe((b) => out.push(b));
    input.next([logEvent({}), logEvent({}), logEvent({})]);
    expect(out.flat()).to.have.length(3);
  });
});
