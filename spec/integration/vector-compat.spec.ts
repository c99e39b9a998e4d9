import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestServer, startTestServer } from '../helpers/http-test-server.js';
import { runWeir, startWeir } from '../helpers/weir-process.js';
import { until } from '../helpers/wait.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-vector-cli-'));
let n = 0;
function file(name: string, text: string, under = tmp): string {
  const p = join(under, name);
  writeFileSync(p, text);
  return p;
}
/** A folder of its own for one test, so globs see only that test's files. */
const folder = () => {
  const d = join(tmp, `t${n++}`);
  mkdirSync(d, { recursive: true });
  return d;
};

/** Two events through a remap to stdout, split over a source file and a sink file. */
const SOURCE_YAML = 'sources:\n  gen:\n    type: demo_logs\n    format: shuffle\n    lines: ["hello"]\n    count: 2\n    interval: 0\n';
const SINK_YAML = 'sinks:\n  out:\n    type: console\n    inputs: [gen]\n    encoding:\n      codec: text\n';
const helloTwice = (r: { code: number | null; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).to.equal(0);
  expect(r.stdout).to.equal('hello\nhello\n');
};

/** The pipeline Vector's packages install as /etc/vector/vector.yaml: demo syslog lines parsed by remap, printed as pretty JSON. */
const VECTOR_DEFAULT_CONFIG = `sources:
  dummy_logs:
    type: "demo_logs"
    format: "syslog"
    interval: 1
transforms:
  parse_logs:
    type: "remap"
    inputs: ["dummy_logs"]
    source: |
      . = parse_syslog!(string!(.message))
sinks:
  print:
    type: "console"
    inputs: ["parse_logs"]
    encoding:
      codec: "json"
      json:
        pretty: true
`;

describe('Vector habits on the weir command line', function () {
  this.timeout(120_000);

  it("Vector's default config installed as the default config file runs with `echo hi | weir`", async () => {
    const config = file('weir.yaml', VECTOR_DEFAULT_CONFIG, folder());
    const p = startWeir([], { env: { WEIR_DEFAULT_CONFIG: config, WEIR_CONFIG: '' }, input: 'hi\n' });
    await until(() => /\n}\n/.test(p.stdout()), 20_000, 'a pretty-printed event on stdout');
    const first = p.stdout().slice(0, p.stdout().indexOf('\n}\n') + 2);
    expect(first.split('\n')[1]).to.match(/^ {2}"[a-z]+": /); // two-space indentation, `": "` after keys
    const event = JSON.parse(first) as Record<string, unknown>;
    expect(event).to.include.keys('appname', 'hostname', 'message', 'severity', 'facility', 'timestamp');
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(p.stderr()).to.include(`files=${config}`);
  });

  it('with no config and no default config file, says where to put one', async () => {
    const r = await runWeir([], { env: { WEIR_DEFAULT_CONFIG: join(tmp, 'absent.yaml'), WEIR_CONFIG: '' } });
    expect(r.code).to.equal(78);
    expect(r.stderr).to.include(`no configuration given; pass --config FILE (TOML, YAML or JSON) or install one at ${join(tmp, 'absent.yaml')}`);
  });

  it('`weir -c a.yaml b.yaml` (what a shell makes of -c *.yaml) reads both files', async () => {
    const d = folder();
    helloTwice(await runWeir(['-c', file('a.yaml', SOURCE_YAML, d), file('b.yaml', SINK_YAML, d)]));
  });

  it('a quoted glob in -c is expanded; one matching nothing is an error naming it', async () => {
    const d = folder();
    file('a.yaml', SOURCE_YAML, d);
    file('b.yaml', SINK_YAML, d);
    helloTwice(await runWeir(['-c', join(d, '*.yaml')]));
    const none = await runWeir(['-c', join(d, 'nothing-*.yaml')]);
    expect(none.code).to.equal(78);
    expect(none.stderr).to.include(`${join(d, 'nothing-*.yaml')}: no file matches this pattern`);
  });

  it('`weir -c x.toml validate` validates x.toml; `weir validate a.yaml b.yaml` takes paths', async () => {
    const d = folder();
    const x = file('x.toml', '[sources.gen]\ntype = "demo_logs"\n[sinks.out]\ntype = "blackhole"\ninputs = ["gen"]\n', d);
    const r = await runWeir(['-c', x, 'validate', '--no-environment']);
    expect(r.code, r.stdout).to.equal(0);
    expect(r.stdout).to.include(`Loaded [${x}]`).and.include('Validated');
    const a = file('a.yaml', SOURCE_YAML, d);
    const b = file('b.yaml', SINK_YAML.replace('codec: text', 'codec: xml'), d);
    const bad = await runWeir(['validate', '--no-environment', a, b]);
    expect(bad.code).to.equal(78);
    expect(bad.stdout).to.include(`Failed to load [${a}, ${b}]`).and.include('sinks.out.encoding.codec');
  });

  it('--config-dir with sources/, transforms/ and sinks/ subfolders (file name = component id, formats mixed); WEIR_CONFIG_DIR the same', async () => {
    const d = folder();
    for (const sub of ['sources', 'transforms', 'sinks']) mkdirSync(join(d, sub));
    file('global.toml', 'timezone = "UTC"\n', d);
    file('gen.yaml', 'type: demo_logs\nformat: shuffle\nlines: ["hello"]\ncount: 2\ninterval: 0\n', join(d, 'sources'));
    file('shout.toml', 'type = "remap"\ninputs = ["gen"]\nsource = ".message = upcase!(.message)"\n', join(d, 'transforms'));
    file('out.json', JSON.stringify({ type: 'console', inputs: ['shout'], encoding: { codec: 'text' } }), join(d, 'sinks'));
    for (const r of [await runWeir(['--config-dir', d]), await runWeir([], { env: { WEIR_CONFIG_DIR: d } })]) {
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal('HELLO\nHELLO\n');
    }
  });

  it('--config-toml/--config-yaml/--config-json read a file in that format whatever its name', async () => {
    const d = folder();
    const src = file('source.conf', SOURCE_YAML, d);
    const sink = file('sink.conf', JSON.stringify({ sinks: { out: { type: 'console', inputs: ['gen'], encoding: { codec: 'text' } } } }), d);
    helloTwice(await runWeir(['--config-yaml', src, '--config-json', sink]));
    const toml = file('all.cfg', '[sources.gen]\ntype = "demo_logs"\nformat = "shuffle"\nlines = ["hello"]\ncount = 2\ninterval = 0\n[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "text"\n', d);
    helloTwice(await runWeir(['--config-toml', toml]));
  });

  it('--threads is accepted (a positive whole number), --color and --log-format json style the daemon\'s log', async () => {
    const d = folder();
    const args = ['-c', file('a.yaml', SOURCE_YAML, d), '-c', file('b.yaml', SINK_YAML, d)];
    helloTwice(await runWeir([...args, '--threads', '4']));
    const zero = await runWeir([...args, '--threads', '0']);
    expect(zero.code).to.not.equal(0);
    expect(zero.stderr).to.include("option '-t, --threads <count>' argument '0' is invalid");

    const coloured = await runWeir([...args, '--color', 'always']);
    expect(coloured.stderr).to.include('\x1b[32mINFO \x1b[0m weir started.');
    const plain = await runWeir([...args, '--color', 'never']);
    expect(plain.stderr).to.not.include('\x1b[');

    const json = await runWeir([...args, '--log-format', 'json']);
    helloTwice(json);
    const records = json.stderr.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.length).to.be.greaterThan(2);
    expect(records[0]).to.include({ level: 'INFO', message: 'weir started.' });
    expect(records.at(-1)!.message).to.include('0 events lost');
  });

  it('an unknown command is named as one, not read as an unreadable config file', async () => {
    const r = await runWeir(['frobnicate']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include('unknown command "frobnicate"');
    const typo = await runWeir(['valdate']);
    expect(typo.stderr).to.include('unknown command "valdate"; did you mean "validate"?');
  });

  it('weir list shows the Vector type names components answer to', async () => {
    const r = await runWeir(['list']);
    expect(r.stdout).to.match(/- labelstore\s.*\(Vector: loki\)/);
    const json = JSON.parse((await runWeir(['list', '--format', 'json'])).stdout) as { aliases: Record<string, string> };
    expect(json.aliases.loki).to.equal('labelstore');
  });

  it('weir vrl: --print-object / -o prints the event; piped input without a program goes to the REPL, as Vector\'s vrl does', async () => {
    const r = await runWeir(['vrl', '-o', '.b = to_int!(.a) + 1'], { input: '{"a":1}\n{"a":2}\n' });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('{"a":1,"b":2}\n{"a":2,"b":3}\n');
    const long = await runWeir(['vrl', '--print-object', '.b = 1'], { input: '{}\n' });
    expect(long.stdout).to.equal('{"b":1}\n');
    // each piped line is a program of the REPL: an object literal prints itself
    const none = await runWeir(['vrl'], { input: '{"a":1}\n' });
    expect(none.code, none.stderr).to.equal(0);
    expect(none.stdout).to.include('$ {"a":1}');
  });
});

describe('a config written with Vector type names only', function () {
  this.timeout(120_000);
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer(() => 204);
  });
  afterEach(() => server.close());

  it('validates and runs: demo_logs -> filter (datadog_search) -> loki', async () => {
    const d = folder();
    const config = file(
      'vector.yaml',
      `sources:
  errors:
    type: demo_logs
    format: shuffle
    lines: ['{"level":"error","msg":"disk full"}']
    decoding: { codec: json }
    count: 3
    interval: 0
  infos:
    type: demo_logs
    format: shuffle
    lines: ['{"level":"info","msg":"ok"}']
    decoding: { codec: json }
    count: 2
    interval: 0
transforms:
  only_errors:
    type: filter
    inputs: [errors, infos]
    condition:
      type: datadog_search
      source: "@level:error"
sinks:
  store:
    type: loki
    inputs: [only_errors]
    endpoint: ${server.url}
    encoding: { codec: json }
    compression: none
    labels: { job: vector-names }
    healthcheck: false
`,
      d,
    );
    const v = await runWeir(['validate', config]);
    expect(v.code, v.stdout).to.equal(0);
    const r = await runWeir(['-c', config]);
    expect(r.code, r.stderr).to.equal(0);
    const pushes = server.requests.filter((q) => q.method === 'POST');
    expect(pushes.length).to.be.greaterThan(0);
    expect(pushes[0]!.url).to.equal('/loki/api/v1/push');
    const lines = pushes.flatMap((q) => (JSON.parse(q.body) as { streams: { stream: Record<string, string>; values: [string, string][] }[] }).streams.flatMap((s) => s.values.map((x) => [s.stream.job, x[1]])));
    expect(lines).to.have.length(3);
    for (const [job, line] of lines) {
      expect(job).to.equal('vector-names');
      expect(JSON.parse(line!)).to.include({ level: 'error', msg: 'disk full' });
    }
  });
});
