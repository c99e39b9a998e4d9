/**
 * The web console in a real browser (Debian's chromium through playwright-core) against a running
 * daemon: every component appears in the graph with its edges, a rate rises above zero, a sink
 * shows its buffer fill, and a click streams tapped events into the side panel. A screenshot is
 * saved (WEIR_CONSOLE_SCREENSHOT=path keeps it; the picture in docs/guides/management-api.md comes from here).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  let browser: Browser;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: npm test installs the chromium package as root (scripts/test-peers.mjs)`);
    dir = mkdtempSync(join(tmpdir(), 'weir-console-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
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

  it('draws every component and edge, shows rising rates and buffer fill, and taps a clicked component', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 640 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/`);
    for (const id of ['web', 'split', 'parse', 'archive', 'alerts']) await page.waitForSelector(`g.node[data-id="${id}"]`, { timeout: 30_000 });
    const edges = await page.$$eval('g.edge', (es) => es.map((e) => `${e.getAttribute('data-from')}->${e.getAttribute('data-to')}`).sort());
    expect(edges).to.deep.equal(['parse->archive', 'split->alerts', 'split->parse', 'web->split']);
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
  });
});
