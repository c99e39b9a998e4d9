import { expect } from 'chai';
import { type AccountedComponent, finalAccount, formatAccount } from '../../../lib/telemetry/account.js';
import { ComponentTelemetry, MetricsRegistry } from '../../../lib/telemetry/registry.js';

const components = new Map<string, AccountedComponent>([
  ['in', { kind: 'source', type: 'socket' }],
  ['f', { kind: 'transform', type: 'filter' }],
  ['r', { kind: 'transform', type: 'remap' }],
  ['web', { kind: 'sink', type: 'http', buffer: 'memory' }],
  ['disk', { kind: 'sink', type: 'http', buffer: 'disk' }],
]);

/** A registry as a run leaves it: 20 events in, 10 filtered, 2 aborted, 1 failed remap, sinks partly delivering. */
function registry(): MetricsRegistry {
  const reg = new MetricsRegistry({});
  const t = (id: string) => new ComponentTelemetry(reg, id, components.get(id)!.kind, components.get(id)!.type);
  const src = t('in');
  src.counter('component_received_events_total').add(20);
  src.counter('component_sent_events_total').add(20);
  src.counter('component_errors_total', { error_code: 'decoder_frame', error_type: 'parser_failed', stage: 'processing' }).add(2);
  src.counter('component_errors_total', { error_code: 'decoder_deserialize', error_type: 'parser_failed', stage: 'processing' }).add(1);
  const f = t('f');
  f.counter('component_received_events_total').add(20);
  f.counter('component_sent_events_total').add(10);
  f.counter('component_discarded_events_total', { intentional: 'true' }).add(10);
  const r = t('r');
  r.counter('component_received_events_total').add(10);
  r.counter('component_sent_events_total').add(7);
  r.counter('component_discarded_events_total', { intentional: 'true' }).add(2);
  r.counter('component_discarded_events_total', { intentional: 'false' }).add(1);
  const web = t('web');
  web.counter('buffer_received_events_total').add(6);
  web.counter('buffer_discarded_events_total').add(1);
  web.counter('component_sent_events_total').add(1);
  web.counter('component_discarded_events_total', { intentional: 'false' }).add(2);
  web.counter('component_errors_total', { error_type: 'request_failed', stage: 'sending' }).add(4);
  web.gauge('buffer_events').set(1); // and 2 more in flight
  const disk = t('disk');
  disk.counter('buffer_received_events_total').add(7);
  disk.counter('component_sent_events_total').add(4);
  disk.gauge('buffer_events').set(3);
  return reg;
}

describe('final account', () => {
  it('counts every accepted, undelivered event as lost, by reason and component; on-purpose drops and frames apart', () => {
    const a = finalAccount(registry(), components, 'forced');
    expect(a.losses.map((l) => [l.id, l.count, l.reason])).to.deep.equal([
      ['r', 1, 'discarded after a processing error'],
      ['web', 2, 'rejected by the sink'],
      ['web', 1, 'dropped by a full buffer (when_full = drop_newest)'],
      ['web', 3, 'shutdown forced with events still buffered'],
    ]);
    expect(a.lost).to.equal(7);
    const text = formatAccount(a);
    const lines = text.split('\n');
    expect(lines.slice(lines.indexOf('7 events lost'))).to.deep.equal([
      '7 events lost',
      '  1 discarded after a processing error: transform "r" (remap)',
      '  2 rejected by the sink: sink "web" (http; request_failed)',
      '  1 dropped by a full buffer (when_full = drop_newest): sink "web" (http)',
      '  3 shutdown forced with events still buffered: sink "web" (http)',
      '12 events dropped on purpose (filter "f": 10, remap "r": 2)',
      '3 frames discarded by decoders (socket "in": 2 too long or cut off, 1 malformed)',
      '3 events kept in disk buffers for the next start (http "disk": 3)',
    ]);
    expect(text).to.match(/sink\s+web\s+received=0 sent=1 discarded=3 buffered=1/);
  });

  it('names the end of the run in the reason for what was still buffered', () => {
    expect(finalAccount(registry(), components, 'drain_limit').losses.at(-1)!.reason).to.equal('graceful shutdown limit reached with events still buffered');
    const reg = registry();
    new ComponentTelemetry(reg, 'web', 'sink', 'http').counter('component_errors_total', { error_type: 'sink_failed', stage: 'sending' }).add();
    const failed = finalAccount(reg, components, 'finished');
    expect(failed.losses.at(-1)!.reason).to.equal('left undelivered when the sink failed');
    // the sink's own failure is the reason of that line, not a rejection type
    expect(failed.losses.find((l) => l.reason === 'rejected by the sink')!.detail).to.equal('request_failed');
  });

  it('a clean run: 0 events lost and no other line', () => {
    const reg = new MetricsRegistry({});
    const t = new ComponentTelemetry(reg, 'out', 'sink', 'console');
    t.counter('buffer_received_events_total').add(5);
    t.counter('component_sent_events_total').add(5);
    const text = formatAccount(finalAccount(reg, new Map([['out', { kind: 'sink', type: 'console', buffer: 'memory' }]]), 'finished'));
    expect(text.split('\n').at(-1)).to.equal('0 events lost');
  });
});
