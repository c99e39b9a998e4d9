import { expect } from 'chai';
import { asyncScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { componentContext, sinkContext, sourceContext } from '../../lib/component-context.js';
import { defaultGlobals } from '../../lib/config/global.js';
import { GateController } from '../../lib/gate.js';
import { LogRoot } from '../../lib/log.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';

describe('component contexts', () => {
  it('defaults: the type as id, default globals, the async scheduler, a registry of its own', () => {
    const ctx = componentContext({ kind: 'transform', type: 'throttle' });
    expect(ctx.id).to.equal('throttle');
    expect(ctx.type).to.equal('throttle');
    expect(ctx.globals).to.deep.equal(defaultGlobals());
    expect(ctx.scheduler).to.equal(asyncScheduler);
    expect(ctx.telemetry.registry).to.equal(ctx.registry);
    expect(componentContext({ kind: 'transform', type: 'throttle' }).registry).to.not.equal(ctx.registry);
  });

  it('binds telemetry to the component id, kind and type in the given registry', () => {
    const registry = new MetricsRegistry({});
    const ctx = componentContext({ id: 'out', kind: 'sink', type: 'console', registry });
    ctx.telemetry.counter('component_sent_events_total').add(3);
    expect(registry.sum('component_sent_events_total', { component_id: 'out', component_kind: 'sink', component_type: 'console' })).to.equal(3);
    expect(registry.sum('component_sent_events_total', { component_kind: 'source' })).to.equal(0);
  });

  it('lays partial globals over the defaults', () => {
    const ctx = componentContext({ kind: 'sink', type: 'file', globals: { data_dir: '/tmp/weir-x', timezone: 'Europe/Paris' } });
    expect(ctx.globals.data_dir).to.equal('/tmp/weir-x');
    expect(ctx.globals.timezone).to.equal('Europe/Paris');
    expect(ctx.globals.acknowledgements).to.deep.equal(defaultGlobals().acknowledgements);
  });

  it('derives a logger tagged with the component from a log root, and uses a logger as given', () => {
    const lines: string[] = [];
    const root = new LogRoot('info', { write: (l) => lines.push(l) }, 0);
    componentContext({ id: 'in', kind: 'source', type: 'socket', log: root }).log.info('Listening.');
    expect(lines[0]).to.match(/INFO  Listening\. component_id=in component_kind=source component_type=socket\n$/);
    componentContext({ id: 'in', kind: 'source', type: 'socket', log: root.logger({ mine: 'yes' }) }).log.info('Plain.');
    expect(lines[1]).to.match(/Plain\. mine=yes\n$/);
  });

  it('uses the scheduler it is given (virtual time in tests)', () => {
    const rx = new TestScheduler(() => undefined);
    expect(componentContext({ kind: 'transform', type: 'reduce', scheduler: rx }).scheduler).to.equal(rx);
  });

  it('source defaults: an open gate, no acknowledgements, a shutdown that never fires', () => {
    const base = componentContext({ kind: 'source', type: 'stdin' });
    const ctx = sourceContext(base);
    expect(ctx.id).to.equal('stdin');
    expect(ctx.out.isOpen).to.equal(true);
    expect(ctx.acknowledgements).to.equal(false);
    new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    }).run(({ expectObservable }) => {
      expectObservable(ctx.shutdown$).toBe('');
    });
    const gate = new GateController(false);
    const given = sourceContext(base, { out: gate, acknowledgements: true });
    expect(given.out).to.equal(gate);
    expect(given.acknowledgements).to.equal(true);
  });

  it('sink defaults: no acknowledgements and an open demand gate of its own', () => {
    const base = componentContext({ kind: 'sink', type: 'http' });
    const a = sinkContext(base);
    const b = sinkContext(base);
    expect(a.acknowledgements).to.equal(false);
    expect(a.demand.isOpen).to.equal(true);
    a.demand.close();
    expect(b.demand.isOpen, 'each sink context has its own demand').to.equal(true);
    const demand = new GateController(true);
    expect(sinkContext(base, { acknowledgements: true, demand })).to.include({ acknowledgements: true, demand });
  });
});
