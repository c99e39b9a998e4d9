/**
 * Draws the cost curves (cost-curves.ts) and the soak (soak.ts) as plain SVG: per curve, CPU s/GiB
 * and peak RSS against the curve's variable (log scale), and the soak's RSS per second.
 * Usage: node dist/scripts/bench/plot-curves.js [dir=docs/performance]
 * Reads <dir>/cost-curves.json and <dir>/soak.json (each when present), writes <dir>/<curve>.svg
 * and <dir>/soak.svg.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, here.includes('/dist/') ? '../../..' : '../..');
const dir = process.argv[2] ?? join(repo, 'docs/performance');

interface Series {
  readonly label: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
}

interface Panel {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly logX: boolean;
  readonly series: readonly Series[];
}

const W = 420;
const H = 280;
const M = { left: 60, right: 16, top: 30, bottom: 46 };
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const fmt = (v: number) => (Math.abs(v) >= 1000 ? `${+(v / 1000).toFixed(1)}k` : `${+v.toPrecision(3)}`);

/** Round tick values covering [lo, hi]. */
function ticks(lo: number, hi: number, n = 5): number[] {
  const step0 = (hi - lo) / n || 1;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= step0)!;
  const out: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step / 2; v += step) out.push(+v.toPrecision(12));
  return out;
}

/** One panel at (x0, 0) of the drawing. */
function panel(p: Panel, x0: number): string {
  const all = p.series.flatMap((s) => s.points);
  const xs = all.map(([x]) => (p.logX ? Math.log10(x) : x));
  const ys = all.map(([, y]) => y);
  const xLo = Math.min(...xs);
  const xHi = Math.max(...xs) === xLo ? xLo + 1 : Math.max(...xs);
  const yTicks = ticks(0, Math.max(...ys) * 1.1);
  const yHi = yTicks[yTicks.length - 1]!;
  const px = (x: number) => x0 + M.left + (((p.logX ? Math.log10(x) : x) - xLo) / (xHi - xLo)) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - (y / yHi) * (H - M.top - M.bottom);
  const parts: string[] = [];
  parts.push(`<text x="${x0 + W / 2}" y="18" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`);
  for (const t of yTicks) {
    parts.push(`<line x1="${x0 + M.left}" x2="${x0 + W - M.right}" y1="${py(t)}" y2="${py(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${x0 + M.left - 6}" y="${py(t) + 4}" text-anchor="end">${fmt(t)}</text>`);
  }
  const xTicks = p.logX ? [...new Set(all.map(([x]) => x))].sort((a, b) => a - b) : ticks(xLo, xHi).filter((t) => t <= xHi);
  for (const t of xTicks) parts.push(`<text x="${px(t)}" y="${H - M.bottom + 16}" text-anchor="middle">${fmt(t)}</text>`);
  parts.push(`<line x1="${x0 + M.left}" x2="${x0 + W - M.right}" y1="${py(0)}" y2="${py(0)}" stroke="#333"/>`);
  parts.push(`<line x1="${x0 + M.left}" x2="${x0 + M.left}" y1="${M.top}" y2="${py(0)}" stroke="#333"/>`);
  parts.push(`<text x="${x0 + M.left + (W - M.left - M.right) / 2}" y="${H - 8}" text-anchor="middle">${esc(p.xLabel)}</text>`);
  parts.push(`<text transform="translate(${x0 + 14},${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(p.yLabel)}</text>`);
  p.series.forEach((s, i) => {
    const path = s.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    if (s.points.length <= 40) for (const [x, y] of s.points) parts.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${s.color}"/>`);
    if (p.series.length > 1) parts.push(`<text x="${x0 + W - M.right - 4}" y="${M.top + 14 + i * 14}" text-anchor="end" fill="${s.color}">${esc(s.label)}</text>`);
  });
  return parts.join('\n');
}

function svg(panels: readonly Panel[]): string {
  const width = W * panels.length;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" viewBox="0 0 ${width} ${H}" font-family="sans-serif" font-size="11">\n` +
    `<rect width="${width}" height="${H}" fill="white"/>\n${panels.map((p, i) => panel(p, i * W)).join('\n')}\n</svg>\n`
  );
}

interface Point {
  x: number;
  cpuSecondsPerGiB: number;
  peakRssMiB: number;
}

const X_LABELS: Record<string, string> = {
  connections: 'connections (socket -> http)',
  partitions: 'partitions of the file sink path (socket -> file)',
  size: 'event size, bytes (socket -> http)',
  inflight: 'events in flight (socket -> http, delayed answers)',
};

const curvesFile = join(dir, 'cost-curves.json');
if (existsSync(curvesFile)) {
  const data = JSON.parse(readFileSync(curvesFile, 'utf8')) as Record<string, unknown>;
  for (const [curve, xLabel] of Object.entries(X_LABELS)) {
    const points = data[curve] as Point[] | undefined;
    if (!points) continue;
    const panels: Panel[] = [
      { title: 'CPU seconds per GiB of input', xLabel, yLabel: 'CPU s/GiB', logX: true, series: [{ label: 'CPU', color: '#1f77b4', points: points.map((p) => [p.x, p.cpuSecondsPerGiB]) }] },
      { title: 'peak RSS', xLabel, yLabel: 'MiB', logX: true, series: [{ label: 'RSS', color: '#d62728', points: points.map((p) => [p.x, p.peakRssMiB]) }] },
    ];
    writeFileSync(join(dir, `${curve}.svg`), svg(panels));
  }
}

const soakFile = join(dir, 'soak.json');
if (existsSync(soakFile)) {
  const soak = JSON.parse(readFileSync(soakFile, 'utf8')) as { samples: [number, number][]; rate: number; pipeline: string };
  const minutes = soak.samples.map(([t, rss]) => [t / 60, rss] as const);
  const title = `${soak.pipeline}, ${soak.rate.toLocaleString('en-US')} events/s: RSS every second`;
  writeFileSync(join(dir, 'soak.svg'), svg([{ title, xLabel: 'minutes', yLabel: 'RSS MiB', logX: false, series: [{ label: 'RSS', color: '#d62728', points: minutes }] }]));
}
