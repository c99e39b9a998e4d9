/**
 * The terminal view of `weir top`, drawn with ink (React for terminals): a header with the
 * connection state and uptime, then the component table `vector top` shows.
 */
import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import { type Row, type TopState, formatCount, formatRate, visibleRows } from './state.js';

export interface ViewOptions {
  url: string;
  version: string;
  globs: readonly string[];
  human: boolean;
}

const HEADERS = ['ID', 'Output', 'Kind', 'Type', 'Events In', 'Bytes In', 'Events Out', 'Bytes Out', 'Errors'];

function cells(r: Row, human: boolean): string[] {
  const isOutput = r.output !== '';
  return [
    isOutput ? '' : r.id,
    r.output,
    isOutput ? '' : r.kind,
    isOutput ? '' : r.type,
    isOutput || r.kind === 'source' ? (r.kind === 'source' && !isOutput ? formatRate(r.eventsIn, human) : '') : formatRate(r.eventsIn, human),
    isOutput || r.kind !== 'source' ? '' : formatRate(r.bytesIn, human, true),
    r.kind === 'sink' && isOutput ? '' : formatRate(r.eventsOut, human),
    r.kind === 'sink' && !isOutput ? formatRate(r.bytesOut, human, true) : '',
    isOutput ? '' : formatCount(r.errors, human),
  ];
}

const uptime = (secs: number | undefined) => {
  if (secs === undefined) return '-';
  const s = Math.floor(secs);
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ${s % 60}s`;
};

/** The whole screen for one state. */
export function TopView({ state, options }: { state: TopState; options: ViewOptions }): ReactElement {
  const rows = visibleRows(state, options.globs).map((r) => cells(r, options.human));
  const widths = HEADERS.map((hd, i) => Math.max(hd.length, ...rows.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i >= 4 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join('  ');
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Box,
      { borderStyle: 'round', paddingX: 1 },
      h(Text, { bold: true }, `weir ${options.version}`),
      h(Text, null, '  '),
      h(Text, { color: state.connected ? 'green' : 'red' }, state.connected ? 'Connected' : 'Disconnected'),
      h(Text, null, `  ${options.url}  uptime ${uptime(state.uptimeSecs)}  ${options.human ? '' : '(--human-metrics for short numbers)'}`),
    ),
    h(
      Box,
      { flexDirection: 'column', borderStyle: 'round', paddingX: 1 },
      h(Text, { bold: true }, line(HEADERS)),
      ...rows.map((c, i) => h(Text, { key: String(i) }, line(c))),
      rows.length === 0 ? h(Text, { dimColor: true }, 'no components') : null,
    ),
    h(Text, { dimColor: true }, 'q or Ctrl-C to quit'),
  );
}
