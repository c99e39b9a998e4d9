/**
 * `log_to_metric` in the running daemon: demo_logs -> log_to_metric -> console (native_json),
 * through the CLI (the compiled bin/weir under `npm test`).
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWeir } from '../helpers/weir-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-log-to-metric-'));

const CONFIG = `
[sources.demo]
type = "demo_logs"
format = "shuffle"
lines = ["7"]
count = 5
interval = 0

[transforms.m]
type = "log_to_metric"
inputs = ["demo"]

[[transforms.m.metrics]]
type = "counter"
field = "message"
name = "lines_total"
namespace = "demo"
tags.host = "{{ host }}"
tags.service = "{{ service }}"

[[transforms.m.metrics]]
type = "counter"
field = "message"
name = "value_sum"
increment_by_value = true
kind = "absolute"

[[transforms.m.metrics]]
type = "gauge"
field = "service"

[[transforms.m.metrics]]
type = "set"
field = "host"
name = "hosts"

[sinks.out]
type = "console"
inputs = ["m"]
encoding.codec = "native_json"
`;

describe('log_to_metric in the daemon: demo_logs -> log_to_metric -> console(native_json)', function () {
  this.timeout(60_000);

  it('prints the metrics of every event, skips the one that is not a number, and loses nothing', async () => {
    const cfg = join(tmp, 'l2m.toml');
    writeFileSync(cfg, CONFIG);
    const { code, stdout, stderr } = await runWeir(['--config', cfg]);
    expect(code, stderr).to.equal(0);
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { metric: Record<string, unknown> });
    expect(lines).to.have.length(15);
    for (const { metric } of lines) expect(metric.timestamp).to.match(/^\d{4}-\d\d-\d\dT/);
    const strip = lines.map(({ metric: { timestamp: _t, ...m } }) => m);
    expect(strip.slice(0, 3)).to.deep.equal([
      { name: 'lines_total', namespace: 'demo', tags: { host: 'localhost', service: 'weir' }, kind: 'incremental', counter: { value: 1 } },
      { name: 'value_sum', kind: 'absolute', counter: { value: 7 } },
      { name: 'hosts', kind: 'incremental', set: { values: ['localhost'] } },
    ]);
    expect(strip.filter((m) => m.name === 'lines_total')).to.have.length(5);
    expect(strip.some((m) => m.name === 'service')).to.equal(false);
    expect(stderr).to.include('Failed to parse field as float.');
    expect(stderr).to.match(/transform m\s+received=5 sent=15 discarded=0/);
    expect(stderr).to.include('0 events lost');
  });
});
