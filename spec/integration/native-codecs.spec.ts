/**
 * Vector's native codecs through the compiled CLI: stdin decodes, console encodes, and what comes
 * out equals what went in, byte for byte (native_json lines; native length-delimited frames).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Stamp, createBatchEncoder, createDeserializer } from '../../lib/codecs/index.js';
import type { Event, MetricEvent } from '../../lib/event.js';
import { Timestamp } from '../../lib/value.js';
import { LOG_LINE, METRIC_LINES } from '../helpers/native-lines.js';
import { until } from '../helpers/wait.js';
import { repoRoot, runWeir, startWeir, weirArgs } from '../helpers/weir-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-native-'));

describe('native codecs through the CLI', function () {
  this.timeout(60_000);

  it('stdin (native_json) -> console (native_json): every metric kind and a rich log come out exactly as they went in', async () => {
    const cfg = join(tmp, 'json.toml');
    writeFileSync(cfg, '[sources.in]\ntype = "stdin"\ndecoding.codec = "native_json"\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "native_json"\n');
    const lines = [...METRIC_LINES, LOG_LINE];
    const res = await runWeir(['--config', cfg], { input: lines.join('\n') + '\n' });
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout.split('\n').filter(Boolean)).to.deep.equal(lines);
    expect(res.stderr).to.match(/source\s+in\s+received=8 sent=8/);
  });

  it('malformed native_json lines are counted in component_errors_total and skipped; the rest flow on', async () => {
    const cfg = join(tmp, 'bad.toml');
    const metrics = join(tmp, 'metrics.ndjson');
    writeFileSync(
      cfg,
      [
        '[sources.in]\ntype = "stdin"\ndecoding.codec = "native_json"',
        '[sources.self]\ntype = "internal_metrics"\nscrape_interval_secs = 0.1',
        '[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "native_json"',
        `[sinks.metrics]\ntype = "file"\ninputs = ["self"]\npath = ${JSON.stringify(metrics)}\nencoding.codec = "native_json"`,
      ].join('\n') + '\n',
    );
    const input = [METRIC_LINES[0], 'not json', '{"metric":{"name":"no_value","kind":"absolute"}}', LOG_LINE, '{"log":{"a":1}', '{"trace":{}}', METRIC_LINES[6]];
    const p = startWeir(['--config', cfg], { input: input.join('\n') + '\n' });
    // internal_metrics keeps the process running: read its own report of the errors, then stop it
    const decodeErrors = () => {
      if (!existsSync(metrics)) return undefined;
      const d = createDeserializer({ codec: 'native_json' }, { sourceId: 't', sourceType: 't' });
      let last: number | undefined;
      for (const line of readFileSync(metrics, 'utf8').split('\n')) {
        if (!line.includes('component_errors_total')) continue;
        const out: Event[] = [];
        d.decode(Buffer.from(line), 0, Buffer.byteLength(line), stamp(), out);
        const m = out[0] as MetricEvent;
        if (m.tags?.component_id === 'in' && m.tags.error_code === 'decoder_deserialize' && m.value.type === 'counter') last = m.value.value;
      }
      return last;
    };
    await until(() => decodeErrors() === 4 && p.stdout().split('\n').filter(Boolean).length === 3, 20_000, 'four counted decode errors and three events out');
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(p.stdout().split('\n').filter(Boolean)).to.deep.equal([METRIC_LINES[0], LOG_LINE, METRIC_LINES[6]]);
    expect(p.stderr()).to.include('Failed deserializing frame.');
    expect(p.stderr()).to.match(/source\s+in\s+received=3 sent=3/);
  });

  it('stdin (native) -> console (native), no framing configured: length-delimited both ways, the bytes come out unchanged', async () => {
    const cfg = join(tmp, 'proto.toml');
    writeFileSync(cfg, '[sources.in]\ntype = "stdin"\ndecoding.codec = "native"\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "native"\n');
    // the events of the native_json lines, as a native sink frames them
    const d = createDeserializer({ codec: 'native_json' }, { sourceId: 't', sourceType: 'stdin' });
    const events: Event[] = [];
    for (const line of [...METRIC_LINES, LOG_LINE]) d.decode(Buffer.from(line), 0, Buffer.byteLength(line), stamp(), events);
    const input = createBatchEncoder({ codec: 'native' }, {}).encode(events).bytes;
    expect(input.readUInt32BE(0)).to.be.lessThan(input.length);

    const { cmd, argv } = weirArgs(['--config', cfg]);
    const child = spawn(cmd, argv, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    // two writes split inside a frame: the source reassembles it
    child.stdin.write(input.subarray(0, 10));
    child.stdin.end(input.subarray(10));
    expect(await exited, err).to.equal(0);
    expect(Buffer.concat(out).equals(input), 'stdout equals stdin').to.equal(true);
    expect(err).to.match(/source\s+in\s+received=8 sent=8/);
  });
});

function stamp(): Stamp {
  return { timestamp: new Timestamp(0), host: undefined, port: undefined };
}
