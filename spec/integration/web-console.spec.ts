/**
 * The web console in a real browser (Debian's chromium through playwright-core) against a running
 * daemon: every component appears in the graph with one edge per output and input (two named
 * outputs into one sink are two labelled edges with their own rates), the first paint shows the
 * API's figures before any tick, a chart's line rises while events flow, a sink shows its buffer
 * fill, and a click streams tapped events into the side panel. A screenshot is saved
 * (WEIR_CONSOLE_SCREENSHOT=path keeps it; docs/console.png comes from here).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { freePort } from '../helpers/free-port.js';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';

const CHROMIUM = '/usr/bin/chromium';

describe('web console in headless chromium', function () {
  this.timeout(180_000);
  let dir: string;
  let daemon: WeirProcess;
  let base: string;
  let feedPort: number;
  let browser: Browser;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: npm test installs the chromium package as root (scripts/test-peers.mjs)`);
    dir = mkdtempSync(join(tmpdir(), 'weir-console-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    feedPort = await freePort();
    const config = join(dir, 'weir.toml');
    writeFileSync(
      config,
      `[api]
enabled = true
address = "127.0.0.1:${port}"

[sources.web]
type = "demo_logs"
format = "apache_common"
interval = 0.01

[transforms.split]
type = "route"
inputs = ["web"]
route.errors = 'contains(string!(.message), "\\" 5")'

[transforms.parse]
type = "remap"
inputs = ["split._unmatched"]
source = '. |= parse_apache_log!(.message, format: "common")'

[sinks.archive]
type = "blackhole"
inputs = ["parse"]
print_interval_secs = 0

[sinks.alerts]
type = "blackhole"
inputs = ["split.errors"]
print_interval_secs = 0
buffer.max_events = 500

[sinks.both]
type = "blackhole"
inputs = ["split.errors", "split._unmatched"]
print_interval_secs = 0

[sources.feed]
type = "socket"
mode = "tcp"
address = "127.0.0.1:${feedPort}"

[sinks.fed]
type = "blackhole"
inputs = ["feed"]
print_interval_secs = 0
`,
    );
    daemon = startWeir(['--config', config]);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
      if (up) break;
      if (daemon.child.exitCode !== null || Date.now() > deadline) throw new Error(`the daemon's API never answered:\n${daemon.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser?.close();
    daemon?.child.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The API's rate history, as the page's first query reads it. */
  async function history(): Promise<{ timestamps: number[]; components: { componentId: string; received: (number | null)[] }[] }> {
    const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ consoleHistory { timestamps components { componentId received } } }' }) });
    return ((await r.json()) as { data: { consoleHistory: Awaited<ReturnType<typeof history>> } }).data.consoleHistory;
  }

  it('first paint: rates, edge labels and the chart come from the API before any subscription tick', async () => {
    // the history holds a rate for the archive sink once two samples saw its events
    const deadline = Date.now() + 60_000;
    for (;;) {
      const h = await history();
      const archive = h.components.find((c) => c.componentId === 'archive');
      if (archive && archive.received.some((x) => (x ?? 0) > 0)) break;
      if (Date.now() > deadline) throw new Error('the history never showed the archive sink receiving');
      await new Promise((r) => setTimeout(r, 200));
    }
    const page = await browser.newPage({ viewport: { width: 1400, height: 640 } });
    // a socket that never acknowledges: no subscription ever ticks, only the first query paints
    await page.routeWebSocket(/\/graphql$/, () => undefined);
    await page.goto(`${base}/`);
    await page.waitForSelector('g.node[data-id="archive"]', { timeout: 30_000 });
    expect(await page.textContent('#status')).to.not.equal('connected');
    expect(Number(await page.getAttribute('g.node[data-id="archive"] .rate', 'data-rate'))).to.be.above(0);
    expect(Number(await page.getAttribute('g.edge[data-to="parse"] text', 'data-rate'))).to.be.above(0);
    expect(Number(await page.getAttribute('#chart', 'data-points'))).to.be.at.least(1);
    await page.close();
  });

  it('draws every component and edge, shows rising rates and buffer fill, and taps a clicked component', async () => {
    // wide enough for the whole graph beside the side panel, as in docs/console.png
    const page = await browser.newPage({ viewport: { width: 1640, height: 640 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/`);
    for (const id of ['web', 'split', 'parse', 'archive', 'alerts']) await page.waitForSelector(`g.node[data-id="${id}"]`, { timeout: 30_000 });
    const edges = await page.$$eval('g.edge', (es) => es.map((e) => `${e.getAttribute('data-from')}->${e.getAttribute('data-to')}`).sort());
    expect(edges).to.deep.equal(['feed->fed', 'parse->archive', 'split->alerts', 'split->both', 'split->both', 'split->parse', 'web->split']);
    // a rate computed from two ticks of the throughput subscription
    // page-side expressions as text: this spec compiles without the DOM's types
    await page.waitForFunction(`Number(document.querySelector('g.node[data-id="archive"] .rate')?.getAttribute('data-rate')) > 0`, undefined, { timeout: 30_000 });
    await page.waitForFunction(`document.querySelector('g.node[data-id="alerts"] .bar-bg')?.getAttribute('data-fill') != null`, undefined, { timeout: 30_000 });
    // per edge, the rate of the output that feeds it: the errors route carries fewer than the whole
    await page.waitForFunction(`Number(document.querySelector('g.edge[data-to="parse"] text')?.getAttribute('data-rate')) > 0`, undefined, { timeout: 30_000 });
    const rate = (to: string) => page.$eval(`g.edge[data-to="${to}"] text`, (t) => Number(t.getAttribute('data-rate')));
    expect(await page.getAttribute('g.edge[data-to="alerts"]', 'data-output')).to.equal('errors');
    expect(await rate('alerts')).to.be.below(await page.$eval('g.edge[data-to="split"] text', (t) => Number(t.getAttribute('data-rate'))));
    expect(await page.textContent('g.node[data-id="alerts"] .type')).to.match(/buffer \d+%/);

    // two named outputs into one sink: two edges, each labelled with its output and its own rate
    const intoBoth = `[...document.querySelectorAll('g.edge[data-to="both"]')].map((e) => ({ output: e.getAttribute('data-output'), text: e.querySelector('text').textContent, rate: Number(e.querySelector('text').getAttribute('data-rate')) }))`;
    await page.waitForFunction(`${intoBoth}.every((e) => e.rate > 0)`, undefined, { timeout: 30_000 });
    const both = (await page.evaluate(intoBoth)) as { output: string; text: string; rate: number }[];
    expect(both.map((e) => e.output).sort()).to.deep.equal(['_unmatched', 'errors']);
    for (const e of both) expect(e.text).to.match(new RegExp(`^${e.output} · [\\d.]+k?/s$`));
    // the same tick gives the edges and the route's total: the two outputs add up to it, each below it
    const figures = (await page.evaluate(`({ edges: ${intoBoth}, split: Number(document.querySelector('g.node[data-id="split"] .rate').getAttribute('data-rate')) })`)) as { edges: { rate: number }[]; split: number };
    expect(figures.edges[0]!.rate + figures.edges[1]!.rate).to.be.closeTo(figures.split, 1e-6);
    for (const e of figures.edges) expect(e.rate).to.be.below(figures.split);

    // the socket source's chart: flat while nothing is sent, then its line rises while lines flow
    await page.click('g.node[data-id="feed"]');
    expect(await page.getAttribute('#chart', 'data-subject')).to.equal('feed');
    expect(await page.getAttribute('#chart', 'data-labels')).to.equal('in events/s,out events/s,errors/s,buffer %');
    const outSeries = async () => ((await page.evaluate('window.weirConsole.chartData()')) as (number | null)[][])[2]!;
    await page.waitForFunction(`window.weirConsole.chartData()[2].filter((x) => x !== null).length >= 2`, undefined, { timeout: 30_000 });
    expect((await outSeries()).every((x) => !x)).to.equal(true);
    const socket = connect(feedPort, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const flowDeadline = Date.now() + 60_000;
    while (((await outSeries()).at(-1) ?? 0) <= 0) {
      if (Date.now() > flowDeadline) throw new Error('the chart of feed never rose');
      socket.write('a line\nanother line\n'.repeat(20));
      await new Promise((r) => setTimeout(r, 50));
    }
    socket.end();
    const risen = await outSeries();
    expect(risen.some((x) => x === 0)).to.equal(true);
    expect(risen.at(-1)).to.be.above(0);

    // an edge's chart: the one output's rate
    await page.click('g.edge[data-to="both"][data-output="errors"] text');
    expect(await page.getAttribute('#chart', 'data-subject')).to.equal('split/errors->both');
    expect(await page.getAttribute('#chart', 'data-labels')).to.equal('events/s');
    await page.click('g.node[data-id="parse"]');
    await page.waitForSelector('#tap .event', { timeout: 30_000 });
    const tapped = JSON.parse((await page.textContent('#tap .event'))!) as Record<string, unknown>;
    expect(tapped).to.have.property('method');
    expect(await page.textContent('#tap-title')).to.equal('Tap: events out of parse');
    await page.screenshot({ path: process.env.WEIR_CONSOLE_SCREENSHOT ?? join(dir, 'console.png') });
    expect(errors).to.deep.equal([]);
  });

  it('the page loads nothing from the network: its script and the layout library come from the daemon', async () => {
    const html = await (await fetch(`${base}/`)).text();
    expect(html).to.contain('/console/app.js');
    expect(html).not.to.match(/(src|href)="https?:/);
    const dagre = await fetch(`${base}/console/dagre.js`);
    expect(dagre.status).to.equal(200);
    const uplot = await fetch(`${base}/console/uplot.js`);
    expect(uplot.status).to.equal(200);
    expect(await uplot.text()).to.contain('uPlot');
    expect((await fetch(`${base}/console/uplot.css`)).headers.get('content-type')).to.contain('text/css');
  });
});
