import { expect } from 'chai';
import { addComponent, applyMessage, emptyState, formatBytes, formatCount, formatRate, matchesAny, removeComponent, visibleRows } from '../../bin/cli/top/state.js';

const source = {
  __typename: 'Source' as const,
  componentId: 'in',
  componentType: 'demo_logs',
  outputs: [{ outputId: '_default', sentEventsTotal: { sentEventsTotal: 7 } }],
  metrics: { __typename: 'SourceMetrics', receivedBytesTotal: { receivedBytesTotal: 700 }, receivedEventsTotal: { receivedEventsTotal: 7 }, sentEventsTotal: { sentEventsTotal: 7 } },
};
const route = {
  __typename: 'Transform' as const,
  componentId: 'split',
  componentType: 'route',
  outputs: [
    { outputId: 'a', sentEventsTotal: { sentEventsTotal: 3 } },
    { outputId: 'b', sentEventsTotal: null },
  ],
  metrics: { __typename: 'TransformMetrics', receivedEventsTotal: { receivedEventsTotal: 7 }, sentEventsTotal: null },
};
const sink = { __typename: 'Sink' as const, componentId: 'out', componentType: 'blackhole', metrics: { __typename: 'SinkMetrics', receivedEventsTotal: null, sentBytesTotal: null, sentEventsTotal: null } };

describe('weir top: the dashboard model', () => {
  it('rows from the components query: totals as reported, a row per named output, sorted source → transform → sink', () => {
    const s = emptyState();
    addComponent(s, sink);
    addComponent(s, route);
    addComponent(s, source);
    const rows = visibleRows(s, ['*']);
    expect(rows.map((r) => [r.id, r.output, r.kind])).to.deep.equal([
      ['in', '', 'source'],
      ['split', '', 'transform'],
      ['split', 'a', 'transform'],
      ['split', 'b', 'transform'],
      ['out', '', 'sink'],
    ]);
    expect(rows[0]!.bytesIn.total).to.equal(700);
    expect(rows[2]!.eventsOut.total).to.equal(3);
    expect(rows[4]!.eventsIn.total).to.equal(0);
  });

  it('totals replace, throughputs become per-second rates of the interval, outputs update their own rows', () => {
    const s = emptyState();
    addComponent(s, source);
    addComponent(s, route);
    applyMessage(s, { componentReceivedEventsTotals: [{ componentId: 'in', metric: { receivedEventsTotal: 100 } }] }, 500);
    applyMessage(s, { componentReceivedEventsThroughputs: [{ componentId: 'in', throughput: 40 }] }, 500);
    applyMessage(s, { componentSentEventsThroughputs: [{ componentId: 'split', throughput: 10, outputs: [{ outputId: 'a', throughput: 6 }] }] }, 2000);
    applyMessage(s, { componentSentEventsTotals: [{ componentId: 'split', metric: { sentEventsTotal: 50 }, outputs: [{ outputId: 'b', sentEventsTotal: { sentEventsTotal: 20 } }] }] }, 2000);
    applyMessage(s, { componentErrorsTotals: [{ componentId: 'split', metric: { errorsTotal: 2 } }] }, 1000);
    applyMessage(s, { uptime: { seconds: 12.5 } }, 1000);
    const [inRow, split, a, b] = visibleRows(s, ['*']);
    expect(inRow!.eventsIn).to.deep.equal({ total: 100, perSec: 80 });
    expect(split!.eventsOut).to.deep.equal({ total: 50, perSec: 5 });
    expect(a!.eventsOut.perSec).to.equal(3);
    expect(b!.eventsOut.total).to.equal(20);
    expect(split!.errors).to.equal(2);
    expect(s.uptimeSecs).to.equal(12.5);
  });

  it('a removed component leaves with its outputs; data for unknown ids is ignored', () => {
    const s = emptyState();
    addComponent(s, route);
    applyMessage(s, { componentReceivedEventsTotals: [{ componentId: 'nope', metric: { receivedEventsTotal: 1 } }] }, 1000);
    removeComponent(s, 'split');
    expect(visibleRows(s, ['*'])).to.deep.equal([]);
  });

  it('--components globs', () => {
    expect(matchesAny('app.parse', ['app.*'])).to.equal(true);
    expect(matchesAny('appxparse', ['app.*'])).to.equal(false);
    expect(matchesAny('in1', ['in?'])).to.equal(true);
    expect(matchesAny('out', ['in*', 'o*'])).to.equal(true);
  });

  it('numbers exact by default, short with --human-metrics', () => {
    expect(formatCount(1234567, false)).to.equal('1,234,567');
    expect(formatCount(1234567, true)).to.equal('1.23M');
    expect(formatBytes(1536, true)).to.equal('1.50 KiB');
    expect(formatRate({ total: 10, perSec: 0 }, false)).to.equal('10');
    expect(formatRate({ total: 2000, perSec: 1500 }, true)).to.equal('2.00k (1.50k/s)');
  });
});
