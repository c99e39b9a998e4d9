import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../../bin/cli/validate.js';
import { catalog } from '../../../connectors/index.js';
import { type ComponentConfig, type Config, buildConfig, readConfigFiles } from '../../../lib/config/load.js';
import { type ConfigSource, expandGlob, resolveConfigSources } from '../../../lib/config/paths.js';
import type { ConfigProblem } from '../../../lib/errors.js';
import { buildGraph } from '../../../lib/topology/graph.js';
import { runWeir } from '../../helpers/weir-process.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-vector-compat-'));
let n = 0;
function file(ext: string, text: string, name = `c${n++}`): string {
  const p = join(dir, `${name}.${ext}`);
  writeFileSync(p, text);
  return p;
}

async function validate(files: readonly (string | ConfigSource)[], problems?: ConfigProblem[]): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } });
  const code = await validateCommand({ files, problems, environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
  return { code, out };
}

/** Loads files as the daemon does; fails the test on any problem. */
function load(...files: string[]): Config {
  const problems: ConfigProblem[] = [];
  const built = buildConfig(readConfigFiles(files, {}, problems), catalog);
  problems.push(...built.problems);
  expect(problems.map((p) => p.message), 'problems').to.deep.equal([]);
  return built.config!;
}
const options = (c: Config, id: string) => (c.components.get(id) as ComponentConfig).options as Record<string, unknown>;

const SRC = `[sources.gen]\ntype = "demo_logs"\nformat = "json"\n`;
const SINK = `[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "json"\n`;

describe('Vector configs run unchanged: options Vector accepts', () => {
  it('Vector\'s shipped default config (encoding.json.pretty on the console sink) validates', async () => {
    const f = file(
      'yaml',
      `sources:\n  dummy_logs:\n    type: "demo_logs"\n    format: "syslog"\n    interval: 1\ntransforms:\n  parse_logs:\n    type: "remap"\n    inputs: ["dummy_logs"]\n    source: |\n      . = parse_syslog!(string!(.message))\nsinks:\n  print:\n    type: "console"\n    inputs: ["parse_logs"]\n    encoding:\n      codec: "json"\n      json:\n        pretty: true\n`,
    );
    const { code, out } = await validate([f]);
    expect(code, out).to.equal(0);
    expect((options(load(f), 'print').encoding as { json: { pretty: boolean } }).json.pretty).to.equal(true);
  });

  it('encoding.json applies to the json codec only; the file sink takes it too', async () => {
    const ok = load(file('toml', SRC + `[sinks.f]\ntype = "file"\ninputs = ["gen"]\npath = "/tmp/x.log"\nencoding.codec = "json"\nencoding.json.pretty = true\n`));
    expect((options(ok, 'f').encoding as { json: { pretty: boolean } }).json.pretty).to.equal(true);
    const { code, out } = await validate([file('toml', SRC + `[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "text"\nencoding.json.pretty = true\n`)]);
    expect(code).to.equal(78);
    expect(out).to.include('sinks.out.encoding.json: applies only when codec is "json" (codec is "text")');
  });

  it('healthcheck given as a bare boolean means healthcheck.enabled, as in Vector', () => {
    const c = load(file('toml', SRC + SINK + `healthcheck = false\n[sinks.two]\ntype = "blackhole"\ninputs = ["gen"]\nhealthcheck = true\n`));
    expect(options(c, 'out').healthcheck).to.deep.equal({ enabled: false });
    expect(options(c, 'two').healthcheck).to.deep.equal({ enabled: true });
  });

  it('healthcheck.uri where the health check queries it (http); elsewhere accepted with one warning that it has no effect', async () => {
    const c = load(file('toml', SRC + `[sinks.h]\ntype = "http"\ninputs = ["gen"]\nuri = "http://127.0.0.1:9/"\nencoding.codec = "json"\nhealthcheck.uri = "http://127.0.0.1:9/health"\n`));
    expect(options(c, 'h').healthcheck).to.deep.equal({ enabled: true, uri: 'http://127.0.0.1:9/health' });
    expect(buildGraph(c).graph!.warnings).to.deep.equal([]);
    const ignored = file('toml', SRC + SINK + `healthcheck.uri = "http://127.0.0.1:9/health"\n`);
    const { code, out } = await validate([ignored]);
    expect(code, out).to.equal(0);
    const warning = 'sinks.out.healthcheck.uri has no effect: the health check of a console sink queries no URI (Vector ignores it too)';
    expect(out.split('\n').filter((l) => l.includes('healthcheck.uri'))).to.deep.equal([`~ ${warning}`]);
    // the sink's check does not see it as a URI to query
    expect(options(load(ignored), 'out').healthcheck).to.deep.equal({ enabled: true, ignored_uri: 'http://127.0.0.1:9/health' });
    // the daemon runs the Vector config and says it once
    const cfg = file('toml', `[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "blackhole"\ninputs = ["in"]\nhealthcheck.uri = "http://127.0.0.1:9/health"\n`);
    const r = await runWeir(['--config', cfg], { input: 'a\nb\n' });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr.split('\n').filter((l) => l.includes('healthcheck.uri'))).to.have.length(1);
    expect(r.stderr).to.include('sinks.out.healthcheck.uri has no effect: the health check of a blackhole sink queries no URI');
  });

  it('proxy.no_proxy may be one comma-separated string (globally and per sink)', () => {
    const c = load(
      file('toml', `proxy.no_proxy = "localhost, .internal,10.0.0.1"\n` + SRC + `[sinks.h]\ntype = "http"\ninputs = ["gen"]\nuri = "http://127.0.0.1:9/"\nencoding.codec = "json"\nproxy.no_proxy = "example.com"\n`),
    );
    expect(c.globals.proxy?.no_proxy).to.deep.equal(['localhost', '.internal', '10.0.0.1']);
    expect((options(c, 'h').proxy as { no_proxy: string[] }).no_proxy).to.deep.equal(['example.com']);
  });

  it('a TOML integer above 2^53 loads as the same number YAML and JSON give', () => {
    const big = '9223372036854775807';
    const fromToml = load(file('toml', `[sources.gen]\ntype = "demo_logs"\ncount = ${big}\n` + SINK));
    const fromYaml = load(file('yaml', `sources:\n  gen:\n    type: demo_logs\n    count: ${big}\n`), file('toml', SINK));
    const fromJson = load(file('json', `{"sources":{"gen":{"type":"demo_logs","count":${big}}}}`), file('toml', SINK));
    expect(options(fromToml, 'gen').count).to.equal(Number(big));
    expect(options(fromToml, 'gen').count).to.equal(options(fromYaml, 'gen').count).and.equal(options(fromJson, 'gen').count);
  });

  it('compression = "zlib" on the http sink; the file sink refuses it as Vector does', async () => {
    const c = load(file('toml', SRC + `[sinks.h]\ntype = "http"\ninputs = ["gen"]\nuri = "http://127.0.0.1:9/"\nencoding.codec = "json"\ncompression = "zlib"\n`));
    expect(options(c, 'h').compression).to.equal('zlib');
    const { out } = await validate([file('toml', SRC + `[sinks.f]\ntype = "file"\ninputs = ["gen"]\npath = "/tmp/x"\nencoding.codec = "json"\ncompression = "zlib"\n`)]);
    expect(out).to.include('sinks.f.compression: must be one of "none", "gzip"; got "zlib"');
  });

  it('the http sink takes framing and retry_strategy', () => {
    const c = load(
      file(
        'toml',
        SRC +
          `[sinks.h]\ntype = "http"\ninputs = ["gen"]\nuri = "http://127.0.0.1:9/"\nencoding.codec = "json"\nframing.method = "newline_delimited"\nretry_strategy = { type = "custom", status_codes = [408, 503] }\n`,
      ),
    );
    expect(options(c, 'h').framing).to.deep.equal({ method: 'newline_delimited' });
    expect(options(c, 'h').retry_strategy).to.deep.equal({ type: 'custom', status_codes: [408, 503] });
  });

  it('demo_logs takes decoding, framing, Vector\'s format aliases and batch_interval', () => {
    const c = load(file('toml', `[sources.gen]\ntype = "demo_logs"\nformat = "rfc5424"\nbatch_interval = 0.5\ndecoding.codec = "json"\nframing.method = "newline_delimited"\n` + SINK));
    const o = options(c, 'gen');
    expect(o.format).to.equal('syslog');
    expect(o.interval).to.equal(0.5);
    expect(o.decoding).to.deep.equal({ codec: 'json' });
    expect(o.framing).to.deep.equal({ method: 'newline_delimited' });
  });

  it('remap takes metric_tag_values and runtime = "ast" (the one runtime Vector has)', async () => {
    const c = load(file('toml', SRC + `[transforms.r]\ntype = "remap"\ninputs = ["gen"]\nsource = "."\nmetric_tag_values = "full"\nruntime = "ast"\n` + SINK.replace('["gen"]', '["r"]')));
    expect(options(c, 'r').metric_tag_values).to.equal('full');
    const { out } = await validate([file('toml', SRC + `[transforms.r]\ntype = "remap"\ninputs = ["gen"]\nsource = "."\nruntime = "vm"\n` + SINK.replace('["gen"]', '["r"]'))]);
    expect(out).to.include('transforms.r.runtime: must be one of "ast"; got "vm"');
  });

  it('a buffer given as a one-element list is that buffer; a longer list is a chain of stages', async () => {
    const c = load(file('toml', SRC + SINK + `buffer = [{ type = "memory", max_events = 7, when_full = "drop_newest" }]\n`));
    expect(options(c, 'out').buffer).to.deep.equal({ type: 'memory', max_events: 7, when_full: 'drop_newest' });
    const chain = load(file('toml', SRC + SINK + `buffer = [{ type = "memory", max_events = 1000, when_full = "overflow" }, { type = "disk", max_size = 268435488, when_full = "block" }]\n`));
    expect(options(chain, 'out').buffer).to.deep.equal({
      type: 'memory',
      max_events: 1000,
      when_full: 'overflow',
      overflow: { type: 'disk', max_size: 268435488, when_full: 'block', max_events: 500 },
    });
    const yaml = load(file('yaml', `sources:\n  gen: { type: demo_logs, format: json }\nsinks:\n  out:\n    type: console\n    inputs: [gen]\n    encoding: { codec: json }\n    buffer:\n      - { type: memory, when_full: overflow }\n      - { type: disk, max_size: 268435488, when_full: drop_newest }\n`));
    expect(options(yaml, 'out').buffer).to.deep.include({ type: 'memory', max_events: 500, when_full: 'overflow' });
  });

  it('chained buffers: overflow only before the last stage, every earlier stage overflows, one disk stage', async () => {
    const cases: [string, string][] = [
      ['buffer.when_full = "overflow"\n', 'sinks.out.buffer.when_full: must be "block" or "drop_newest"; "overflow" needs a next stage'],
      ['buffer = [{ type = "memory", when_full = "overflow" }]\n', 'sinks.out.buffer[0].when_full: must be "block" or "drop_newest": the last stage has no next stage'],
      [
        'buffer = [{ type = "memory", when_full = "overflow" }, { type = "disk", max_size = 268435488, when_full = "overflow" }]\n',
        'sinks.out.buffer[1].when_full: must be "block" or "drop_newest": the last stage has no next stage',
      ],
      ['buffer = [{ type = "memory" }, { type = "disk", max_size = 268435488 }]\n', 'sinks.out.buffer[0].when_full: must be "overflow" on every stage but the last (stage 1 follows); got "block"'],
      [
        'buffer = [{ type = "disk", max_size = 268435488, when_full = "overflow" }, { type = "disk", max_size = 268435488 }]\n',
        'sinks.out.buffer[1].type: a chained buffer holds at most one "disk" stage',
      ],
      ['buffer = [{ type = "memory", when_full = "overflow" }, { type = "disk" }]\n', 'sinks.out.buffer[1].max_size: max_size is required when type is "disk"'],
      ['buffer = []\n', 'sinks.out.buffer: must list at least one buffer stage'],
      ['buffer = [{ type = "memory", when_full = "spill" }, { type = "memory" }]\n', 'sinks.out.buffer[0].when_full: must be one of "block", "drop_newest", "overflow"'],
    ];
    for (const [text, message] of cases) {
      const f = file('toml', SRC + SINK + text);
      const { code, out } = await validate([f]);
      expect(code, text).to.equal(78);
      expect(out, text).to.include(f).and.include(message);
    }
  });

  it('schema and telemetry tables: the values weir honours load, the others name the option', async () => {
    const c = load(file('toml', `schema.log_namespace = false\nschema.enabled = false\ntelemetry.tags.emit_service = false\n` + SRC + SINK));
    expect(c.globals.schema.log_namespace).to.equal(false);
    const { code, out } = await validate([file('toml', `schema.log_namespace = true\ntelemetry.tags.emit_source = true\n` + SRC + SINK)]);
    expect(code).to.equal(78);
    expect(out).to.include("schema.log_namespace: schema.log_namespace = true (Vector's log namespacing) is not supported by weir yet");
    expect(out).to.include('telemetry.tags.emit_source: telemetry.tags.emit_source (the source tag on component metrics) is not supported by weir yet');
  });

  it('log namespacing: false (the legacy layout) loads, globally and per source; true is refused saying what it would change', async () => {
    const off = load(file('toml', `schema.log_namespace = false\n[sources.gen]\ntype = "demo_logs"\nformat = "json"\nlog_namespace = false\n[sources.in]\ntype = "stdin"\nlog_namespace = false\n` + SINK));
    expect(off.globals.schema.log_namespace).to.equal(false);
    // the source's own options are what they are without it
    expect(options(off, 'in')).to.not.have.property('log_namespace');
    expect(options(off, 'gen').format).to.equal('json');
    expect(load(file('toml', SRC + SINK)).globals.schema.log_namespace).to.equal(false);

    const what = "= true (Vector's log namespacing) is not supported by weir yet: it would move the fields a source adds (timestamp, host, source_type and the like) into event metadata and make the decoded `message` the root of the event instead of a field; weir keeps the legacy layout. Set it to false or leave it out";
    const global = await validate([file('toml', `schema.log_namespace = true\n` + SRC + SINK)]);
    expect(global.code).to.equal(78);
    expect(global.out).to.include(`schema.log_namespace: schema.log_namespace ${what}`);
    const source = await validate([file('toml', `[sources.gen]\ntype = "demo_logs"\nformat = "json"\nlog_namespace = true\n` + SINK)]);
    expect(source.code).to.equal(78);
    expect(source.out).to.include(`sources.gen.log_namespace: log_namespace ${what} [WEIR_ERR_CONFIG_UNSUPPORTED]`);
    expect(source.out).to.not.include('unknown option');
    const wrong = await validate([file('toml', `[sources.gen]\ntype = "demo_logs"\nformat = "json"\nlog_namespace = "vector"\n` + SINK)]);
    expect(wrong.code).to.equal(78);
    expect(wrong.out).to.include('sources.gen.log_namespace: must be a boolean (false, the legacy layout, is the only value weir supports); got "vector"');
  });

  it('geoip enrichment tables and secret are named as not supported yet, not as unknown options', async () => {
    const { code, out } = await validate([file('toml', `[enrichment_tables.geo]\ntype = "geoip"\npath = "/x.mmdb"\n[secret.vault]\ntype = "exec"\n` + SRC + SINK)]);
    expect(code).to.equal(78);
    expect(out).to.include('enrichment_tables.geo: type "geoip" enrichment tables are not supported by weir yet; only "file" is');
    expect(out).to.include('secret: secret backends (SECRET[backend.key] placeholders) are not supported by weir yet');
    expect(out).to.not.include('unknown option');
  });

  it('unit tests in a config: validate says they were not run', async () => {
    const { code, out } = await validate([file('toml', SRC + SINK + `[[tests]]\nname = "fails"\n[[tests.inputs]]\ninsert_at = "gen"\nvalue = "x"\n`)]);
    expect(code, out).to.equal(0);
    expect(out).to.include('1 unit test(s) in the config were not run');
  });

  it('a Vector option weir does not implement is explained as such, a typo stays a typo', async () => {
    const { code, out } = await validate([
      file('toml', SRC + `log_namespace = true\n` + `[transforms.r]\ntype = "reduce"\ninputs = ["gen"]\nend_every_period_ms = 1000\n` + SINK + `bogus = 1\n`),
    ]);
    expect(code).to.equal(78);
    expect(out).to.include("sources.gen.log_namespace: log_namespace = true (Vector's log namespacing) is not supported by weir yet");
    expect(out).to.include('transforms.r.end_every_period_ms: not supported by weir yet');
    expect(out).to.include('sinks.out.bogus: unknown option');
  });
});

describe("Vector's type names", () => {
  it('every alias in the catalog finds its component, and a config written with them loads as the component', () => {
    const aliases = [
      ['loki', 'labelstore'],
      ['influxdb_metrics', 'tsdb_metrics'],
      ['splunk_hec_metrics', 'siem_hec_metrics'],
      ['humio_metrics', 'logsvc_metrics'],
    ] as const;
    for (const [vector, weir] of aliases) {
      const def = catalog.find('sink', vector);
      if (def === undefined) continue; // the component is not in this build's catalog
      expect(def.type).to.equal(weir);
    }
    expect(catalog.find('sink', 'loki')?.type, 'loki').to.equal('labelstore');
    const c = load(
      file(
        'yaml',
        `sources:\n  gen:\n    type: demo_logs\n    format: json\nsinks:\n  store:\n    type: loki\n    inputs: [gen]\n    endpoint: http://127.0.0.1:9\n    encoding:\n      codec: json\n    labels:\n      job: demo\n`,
      ),
    );
    const store = c.components.get('store')!;
    expect(store.def.type).to.equal('labelstore');
    expect((store.options as { type: string }).type).to.equal('labelstore');
  });

  it('datadog_search is the search_query condition', () => {
    const c = load(file('toml', SRC + `[transforms.f]\ntype = "filter"\ninputs = ["gen"]\ncondition = { type = "datadog_search", source = "status:error" }\n` + SINK.replace('["gen"]', '["f"]')));
    expect(options(c, 'f').condition).to.deep.equal({ type: 'search_query', source: 'status:error' });
  });
});

describe('weir validate reports every problem of a config in one run', () => {
  it('problems at different depths and in different components, including those an unknown option used to hide', async () => {
    const f = file(
      'toml',
      [
        `[sources.gen]\ntype = "demo_logs"\nformat = "json"\ncolour = "red"\n`, // 1: unknown option of a source
        `[transforms.r]\ntype = "remap"\ninputs = ["gen"]\nruntime = "vm"\n`, // 2: bad value; 3: no program (a check behind it)
        `[transforms.bad]\ntype = "remap"\ninputs = ["gen"]\nsource = ".a = "\n`, // 4: a program that does not compile (build check)
        `[sinks.out]\ntype = "console"\ninputs = ["bad", "nowhere"]\nencoding.codec = "json"\nencoding.json.prety = true\n`, // 5: unknown option two levels down; 6: an input naming nothing
        `[sinks.h]\ntype = "http"\ninputs = ["gen"]\nuri = "http://u:p@127.0.0.1:9/"\nauth = { strategy = "basic", user = "x" }\nencoding.codec = "json"\nbatch.max_event = 3\n`, // 7: typo in a table; 8: credentials twice (a check behind it)
      ].join(''),
    );
    const { code, out } = await validate([f]);
    expect(code).to.equal(78);
    const expected = [
      'sources.gen.colour: unknown option',
      'transforms.r.runtime: must be one of "ast"; got "vm"',
      'transforms.r: exactly one of source, file or files is required',
      'transforms.bad.source: remap program does not compile',
      'sinks.out.encoding.json.prety: unknown option; did you mean "pretty"?',
      'sinks.out.inputs[1]: "nowhere" doesn\'t match any component',
      'sinks.h.batch.max_event: unknown option; did you mean "max_events"?',
      'sinks.h.uri: credentials in the URI and auth must not both be set',
    ];
    for (const e of expected) expect(out, e).to.include(e);
    // an input naming a component that failed validation is not reported a second time
    expect(out).to.not.match(/inputs\[0\].*"bad"|"r" doesn't match/);
  });

  it('a file with a syntax error does not also produce graph problems about what it would have defined', async () => {
    const a = file('toml', `[sources.gen\ntype = "demo_logs"\n`);
    const b = file('toml', SINK);
    const { code, out } = await validate([a, b]);
    expect(code).to.equal(78);
    expect(out).to.include('invalid TOML');
    expect(out).to.not.include("doesn't match any component").and.not.include('no sources defined');
  });
});

describe('config locations', () => {
  it('a config folder: root files are whole configs, sources/transforms/sinks hold one component per file, formats mixed', async () => {
    const root = join(dir, `folder${n++}`);
    for (const sub of ['sources', 'transforms', 'sinks', '.hidden']) mkdirSync(join(root, sub), { recursive: true });
    writeFileSync(join(root, 'global.toml'), 'timezone = "UTC"\n');
    writeFileSync(join(root, 'README.md'), 'not a config');
    writeFileSync(join(root, 'sources', 'gen.yaml'), 'type: demo_logs\nformat: json\n');
    writeFileSync(join(root, 'transforms', 'up.toml'), 'type = "remap"\ninputs = ["gen"]\nsource = ".x = 1"\n');
    writeFileSync(join(root, 'sinks', 'out.json'), JSON.stringify({ type: 'console', inputs: ['up'], encoding: { codec: 'json' } }));
    writeFileSync(join(root, '.hidden', 'x.toml'), 'this is not toml');
    const problems: ConfigProblem[] = [];
    const sources = resolveConfigSources({ dirs: [root] }, problems);
    expect(problems).to.deep.equal([]);
    expect(sources.map((s) => [s.path.slice(root.length + 1), s.section])).to.deep.equal([
      ['global.toml', undefined],
      ['sources/gen.yaml', 'sources'],
      ['transforms/up.toml', 'transforms'],
      ['sinks/out.json', 'sinks'],
    ]);
    const { code, out } = await validate(sources);
    expect(code, out).to.equal(0);
    const built = buildConfig(readConfigFiles(sources, {}, problems), catalog);
    expect([...built.config!.components.keys()].sort()).to.deep.equal(['gen', 'out', 'up']);
    expect(built.config!.globals.timezone).to.equal('UTC');
  });

  it('a problem in a folder item names its file and the component the file name gives', async () => {
    const root = join(dir, `folder${n++}`);
    mkdirSync(join(root, 'sinks'), { recursive: true });
    writeFileSync(join(root, 'base.toml'), SRC);
    writeFileSync(join(root, 'sinks', 'printer.yaml'), 'type: console\ninputs: [gen]\nencoding: {codec: json}\ntarget: printer\n');
    const { out } = await validate(resolveConfigSources({ dirs: [root] }, []));
    expect(out).to.include(`${join(root, 'sinks', 'printer.yaml')}: sinks.printer.target: must be one of "stdout", "stderr"`);
  });

  it('globs (`*`, `?`, `[…]`, `**`) expand to the matching files, sorted; a pattern matching nothing is a problem', () => {
    const root = join(dir, `glob${n++}`);
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    for (const f of ['x1.yaml', 'x2.yaml', 'y.toml', 'a/x3.yaml', 'a/b/x4.yaml']) writeFileSync(join(root, f), '');
    expect(expandGlob(join(root, 'x*.yaml'))).to.deep.equal([join(root, 'x1.yaml'), join(root, 'x2.yaml')]);
    expect(expandGlob(join(root, 'x?.yaml'))).to.have.length(2);
    expect(expandGlob(join(root, 'x[2-9].yaml'))).to.deep.equal([join(root, 'x2.yaml')]);
    expect(expandGlob(join(root, '**', 'x*.yaml'))).to.deep.equal([join(root, 'a/b/x4.yaml'), join(root, 'a/x3.yaml'), join(root, 'x1.yaml'), join(root, 'x2.yaml')]);
    const problems: ConfigProblem[] = [];
    const sources = resolveConfigSources({ config: [`${join(root, '*.yaml')},${join(root, 'y.toml')}`], yaml: [join(root, 'none*.conf')] }, problems);
    expect(sources.map((s) => s.path)).to.deep.equal([join(root, 'x1.yaml'), join(root, 'x2.yaml'), join(root, 'y.toml')]);
    expect(problems.map((p) => p.message)).to.deep.equal(['no file matches this pattern']);
  });

  it('--config-toml/yaml/json read a file in that format whatever its name', async () => {
    const f = file('conf', 'sources:\n  gen:\n    type: demo_logs\nsinks:\n  out:\n    type: blackhole\n    inputs: [gen]\n');
    const { code, out } = await validate(resolveConfigSources({ yaml: [f] }, []));
    expect(code, out).to.equal(0);
    const unnamed = await validate([f]);
    expect(unnamed.out).to.include('unknown file format');
  });
});
