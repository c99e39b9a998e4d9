/**
 * The management API in the real daemon: `api.enabled` starts it, `/health` follows the run, the
 * components query sees the running topology, a SIGHUP reload shows in `componentAdded`, a taken
 * address ends the process with the address named, and `api` tables merge across config files.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../lib/config/load.js';
import { ConfigError } from '../../lib/errors.js';
import { catalog } from '../../connectors/index.js';
import { freePort } from '../helpers/free-port.js';
import { GraphQLSocket } from '../helpers/graphql-ws.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-api-'));

describe('management API in the daemon', function () {
  this.timeout(60_000);

  it('serves /health, the components query and componentAdded on reload; exits cleanly', async () => {
    const port = await freePort();
    const cfg = join(tmp, 'api.toml');
    const base = `[api]\nenabled = true\naddress = "127.0.0.1:${port}"\n[sources.gen]\ntype = "demo_logs"\nformat = "shuffle"\nlines = ["a"]\ninterval = 0.01\n[sinks.hole]\ntype = "blackhole"\ninputs = ["gen"]\nprint_interval_secs = 0\n`;
    writeFileSync(cfg, base);
    const p = startWeir(['--config', cfg]);
    try {
      await until(() => p.stderr().includes('weir started'), 30_000, 'start');
      expect(p.stderr()).to.include('Management API listening.');
      const url = `http://127.0.0.1:${port}`;
      const health = await fetch(`${url}/health`);
      expect([health.status, await health.json()]).to.deep.equal([200, { ok: true }]);
      const q = async () => {
        const r = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ components(sort: [{field: COMPONENT_KEY}]) { nodes { componentId componentType ... on Sink { metrics { receivedEventsTotal { receivedEventsTotal } } } } } }' }) });
        return ((await r.json()) as { data: { components: { nodes: { componentId: string; componentType: string; metrics?: { receivedEventsTotal: { receivedEventsTotal: number } | null } }[] } } }).data.components.nodes;
      };
      let nodes = await q();
      expect(nodes.map((n) => [n.componentId, n.componentType])).to.deep.equal([
        ['gen', 'demo_logs'],
        ['hole', 'blackhole'],
      ]);
      // counts rise while the daemon runs
      const first = nodes[1]!.metrics!.receivedEventsTotal?.receivedEventsTotal ?? 0;
      for (let i = 0; i < 200 && (nodes[1]!.metrics!.receivedEventsTotal?.receivedEventsTotal ?? 0) <= first; i++) {
        await new Promise((r) => setTimeout(r, 50));
        nodes = await q();
      }
      expect(nodes[1]!.metrics!.receivedEventsTotal!.receivedEventsTotal).to.be.above(first);

      const ws = await GraphQLSocket.open(`ws://127.0.0.1:${port}/graphql`, 'legacy');
      ws.subscribe('1', 'subscription { componentAdded { __typename componentId } }');
      ws.subscribe('2', 'subscription { heartbeat(interval: 50) { utc } }');
      await ws.waitForData('2', () => true); // the subscriptions are live
      writeFileSync(cfg, base + `[sinks.more]\ntype = "blackhole"\ninputs = ["gen"]\nprint_interval_secs = 0\n`);
      p.child.kill('SIGHUP');
      const [added] = await ws.waitForData('1', () => true);
      expect(added).to.deep.equal({ componentAdded: { __typename: 'Sink', componentId: 'more' } });
      ws.ws.terminate();
      // a reload that changes the api table restarts the server with the new options
      expect((await fetch(`${url}/playground`)).status).to.equal(200);
      writeFileSync(cfg, base.replace('enabled = true\n', 'enabled = true\nplayground = false\n'));
      p.child.kill('SIGHUP');
      let status = 200;
      for (let i = 0; i < 400 && status !== 404; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = await fetch(`${url}/playground`).then((r) => r.status, () => 0);
      }
      expect(status, p.stderr()).to.equal(404);
      expect((await fetch(`${url}/health`)).status).to.equal(200);
    } finally {
      p.child.kill('SIGTERM');
    }
    const { code } = await p.exited;
    expect(code).to.equal(0);
  });

  it('exits 78 naming api.address when the address is taken, before any source starts', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const cfg = join(tmp, 'taken.toml');
    writeFileSync(cfg, `api.enabled = true\napi.address = "127.0.0.1:${port}"\n[sources.gen]\ntype = "demo_logs"\nformat = "shuffle"\nlines = ["a"]\n[sinks.hole]\ntype = "blackhole"\ninputs = ["gen"]\n`);
    try {
      const p = startWeir(['--config', cfg]);
      const { code } = await p.exited;
      expect(code).to.equal(78);
      expect(p.stderr()).to.include(`api.address: 127.0.0.1:${port} is already in use`);
      expect(p.stderr()).not.to.include('weir started');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it('merges api tables across files: enabled if any, playground only if all, one non-default address', () => {
    const a = join(tmp, 'a.toml');
    const b = join(tmp, 'b.toml');
    const c = join(tmp, 'c.toml');
    writeFileSync(a, `[api]\nenabled = true\nplayground = true\n[sources.gen]\ntype = "demo_logs"\nformat = "shuffle"\nlines = ["a"]\n`);
    writeFileSync(b, `[api]\nenabled = false\nplayground = false\naddress = "127.0.0.1:9999"\n[sinks.hole]\ntype = "blackhole"\ninputs = ["gen"]\n`);
    writeFileSync(c, `[api]\naddress = "127.0.0.1:7777"\n`);
    const merged = loadConfig([a, b], catalog);
    expect(merged.globals.api).to.deep.equal({ enabled: true, playground: false, graphql: true, address: '127.0.0.1:9999' });
    let err: unknown;
    try {
      loadConfig([a, b, c], catalog);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.path)).to.include('api.address');
    const bad = join(tmp, 'bad.toml');
    writeFileSync(bad, `api.address = "8686"\n[sources.gen]\ntype = "demo_logs"\nformat = "shuffle"\nlines = ["a"]\n[sinks.hole]\ntype = "blackhole"\ninputs = ["gen"]\n`);
    err = undefined;
    try {
      loadConfig([bad], catalog);
    } catch (e) {
      err = e;
    }
    expect((err as ConfigError).problems.map((p) => [p.path, p.message])).to.deep.equal([['api.address', 'expected host:port, like 127.0.0.1:8686']]);
    expect(loadConfig([join(tmp, 'a.toml'), join(tmp, 'b.toml')], catalog).globals.api.address).to.equal('127.0.0.1:9999');
  });
});
