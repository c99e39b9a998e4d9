/**
 * `weir top`: a live dashboard of a running weir's components, like `vector top`. It asks the API
 * for `health` and the component list, then keeps one WebSocket of subscriptions (added/removed
 * components, totals, throughputs, errors, uptime), reconnecting unless told not to.
 */
import { createElement as h } from 'react';
import { render } from 'ink';
import { EMPTY, defer, from, repeat, retry, switchMap, tap, timer } from 'rxjs';
import { healthy, query, subscribeAll } from '../api/client.js';
import { addComponent, applyMessage, emptyState, removeComponent } from './state.js';
import { TopView } from './view.js';

export interface TopFlags {
  url: string;
  interval: number;
  components: string[];
  humanMetrics: boolean;
  reconnect: boolean;
}

const COMPONENTS = `query ComponentsQuery($first: Int!) {
  components(first: $first) { edges { node {
    __typename componentId componentType
    ... on Source { outputs { outputId sentEventsTotal { sentEventsTotal } }
      metrics { __typename receivedBytesTotal { receivedBytesTotal } receivedEventsTotal { receivedEventsTotal } sentEventsTotal { sentEventsTotal } } }
    ... on Transform { outputs { outputId sentEventsTotal { sentEventsTotal } }
      metrics { __typename receivedEventsTotal { receivedEventsTotal } sentEventsTotal { sentEventsTotal } } }
    ... on Sink { metrics { __typename receivedEventsTotal { receivedEventsTotal } sentBytesTotal { sentBytesTotal } sentEventsTotal { sentEventsTotal } } }
  } } }
}`;

/** The subscriptions `vector top` opens, each with the interval. */
function subscriptions(interval: number) {
  const v = { interval };
  const totals = (field: string, metric: string) => ({ document: `subscription($interval: Int!) { ${field}(interval: $interval) { componentId metric { ${metric} } } }`, variables: v });
  const rates = (field: string) => ({ document: `subscription($interval: Int!) { ${field}(interval: $interval) { componentId throughput } }`, variables: v });
  return [
    { document: 'subscription { componentAdded { __typename componentId componentType } }' },
    { document: 'subscription { componentRemoved { __typename componentId } }' },
    totals('componentReceivedEventsTotals', 'receivedEventsTotal'),
    rates('componentReceivedEventsThroughputs'),
    totals('componentReceivedBytesTotals', 'receivedBytesTotal'),
    rates('componentReceivedBytesThroughputs'),
    {
      document: `subscription($interval: Int!) { componentSentEventsTotals(interval: $interval) { componentId metric { sentEventsTotal } outputs { outputId sentEventsTotal { sentEventsTotal } } } }`,
      variables: v,
    },
    { document: `subscription($interval: Int!) { componentSentEventsThroughputs(interval: $interval) { componentId throughput outputs { outputId throughput } } }`, variables: v },
    totals('componentSentBytesTotals', 'sentBytesTotal'),
    rates('componentSentBytesThroughputs'),
    totals('componentErrorsTotals', 'errorsTotal'),
    { document: `subscription($interval: Int!) { uptime(interval: $interval) { seconds } }`, variables: v },
  ];
}

/** Runs the dashboard until `q`/Ctrl-C (or, with `--no-reconnect`, until the connection ends). */
export async function topCommand(flags: TopFlags, version: string): Promise<number> {
  if (!(await healthy(flags.url))) {
    process.stderr.write(`[top] the API is unreachable at ${flags.url}: is weir running with api.enabled = true?\n`);
    return 69;
  }
  const state = emptyState();
  const options = { url: flags.url, version, globs: flags.components, human: flags.humanMetrics };
  const app = render(h(TopView, { state, options }), { exitOnCtrlC: true });
  const redraw = () => app.rerender(h(TopView, { state: { ...state }, options }));

  const load = async () => {
    const d = await query<{ components: { edges: { node: Parameters<typeof addComponent>[1] }[] } }>(flags.url, COMPONENTS, { first: 32767 });
    state.rows.clear();
    for (const e of d.components.edges) addComponent(state, e.node);
  };

  const disconnected = () => {
    state.connected = false;
    redraw();
    return flags.reconnect ? timer(1000) : EMPTY;
  };
  // each (re)connection reloads the list first, then opens the subscriptions
  const sub = defer(() => from(load()))
    .pipe(
      tap(() => {
        state.connected = true;
        redraw();
      }),
      switchMap(() => subscribeAll(flags.url, subscriptions(flags.interval))),
      retry({ delay: disconnected }),
      repeat({ delay: disconnected }),
    )
    .subscribe({
      next: ({ data }) => {
        if ('componentAdded' in data) addComponent(state, data.componentAdded as Parameters<typeof addComponent>[1]);
        else if ('componentRemoved' in data) removeComponent(state, (data.componentRemoved as { componentId: string }).componentId);
        else applyMessage(state, data, flags.interval);
        redraw();
      },
      complete: () => app.unmount(),
    });

  const stdin = process.stdin;
  if (stdin.isTTY) {
    stdin.setRawMode?.(true);
    stdin.on('data', (b: Buffer) => {
      if (b.toString() === 'q') app.unmount();
    });
  }
  await app.waitUntilExit();
  sub.unsubscribe();
  return 0;
}
