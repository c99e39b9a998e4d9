import { expect } from 'chai';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../../bin/cli/validate.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-validate-'));
let n = 0;
function file(ext: string, text: string): string {
  const p = join(dir, `c${n++}.${ext}`);
  writeFileSync(p, text);
  return p;
}
async function validate(...files: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } });
  const code = await validateCommand({ files, environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
  return { code, out };
}

const SRC = `[sources.gen]\ntype = "demo_logs"\nformat = "json"\n`;
const SINK = `[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "json"\n`;

/** One case per kind of error: the config, then what the report must say (file is always checked). */
const cases: { kind: string; text: string; ext?: string; expect: (string | RegExp)[] }[] = [
  { kind: 'TOML syntax error, with line and column', text: SRC + `[sinks.out\ntype = "console"\n`, expect: [/c\d+\.toml:4:11: invalid TOML: /] },
  { kind: 'TOML syntax error inside a value', text: SRC + `[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding = { codec = "json" x = 1 }\n`, expect: [/c\d+\.toml:7:29: invalid TOML: expected comma or end of structure \[/] },
  { kind: 'YAML syntax error, with line and column', ext: 'yaml', text: `sources:\n  gen:\n    type: demo_logs\n    lines: [a, b\nsinks: {}\n`, expect: [/c\d+\.yaml:5:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a \] \[/] },
  { kind: 'JSON syntax error, with line and column', ext: 'json', text: `{\n  "sources": {\n    "gen": { "type": "demo_logs", }\n  }\n}\n`, expect: [/c\d+\.json:3:35: invalid JSON: Expected double-quoted property name \[/] },
  { kind: 'JSON syntax error V8 reports without a position', ext: 'json', text: `{\n  "sources": {\n    "gen": { "type": }\n  }\n}\n`, expect: [/c\d+\.json:3:22: invalid JSON: Unexpected token '\}' \[/] },
  { kind: 'unknown component type', text: SRC + `[sinks.out]\ntype = "elasticsearchh"\ninputs = ["gen"]\n`, expect: ['sinks.out.type', 'unknown sink type "elasticsearchh"', 'allowed sinks types: ', 'console'] },
  { kind: 'missing required option', text: SRC + `[sinks.out]\ntype = "console"\ninputs = ["gen"]\n`, expect: ['sinks.out.encoding', 'missing required option'] },
  { kind: 'unknown option', text: SRC + SINK + `bogus = 1\n`, expect: ['sinks.out.bogus', 'unknown option', 'allowed options: type, inputs, target'] },
  { kind: 'misspelt option', text: SRC + SINK + `buffer.max_event = 5\n`, expect: ['sinks.out.buffer.max_event: unknown option; did you mean "max_events"? ['] },
  { kind: 'misspelt option with two letters swapped', text: SRC + SINK + `inptus = ["gen"]\n`, expect: ['sinks.out.inptus: unknown option; did you mean "inputs"? ['] },
  { kind: 'misspelt component type', text: SRC + `[sinks.out]\ntype = "consloe"\ninputs = ["gen"]\n`, expect: ['sinks.out.type: unknown sink type "consloe"; did you mean "console"? ['] },
  { kind: 'misspelt global option', text: `timezon = "UTC"\n` + SRC + SINK, expect: ['timezon: unknown option; did you mean "timezone"? ['] },
  { kind: 'misspelt nested global option', text: `healthchecks.enable = false\n` + SRC + SINK, expect: ['healthchecks.enable: unknown option; did you mean "enabled"? ['] },
  { kind: 'wrong value type', text: `[sources.gen]\ntype = "demo_logs"\ninterval = "fast"\n` + SINK, expect: ['sources.gen.interval', 'must be a number; got "fast"'] },
  { kind: 'value outside an enum', text: SRC + `[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "xml"\n`, expect: ['sinks.out.encoding.codec', 'must be one of "json", ', 'got "xml"'] },
  { kind: 'number out of range', text: SRC + SINK + `buffer.max_events = 0\n`, expect: ['sinks.out.buffer.max_events', 'must be at least 1; got number 0'] },
  { kind: 'input naming nothing', text: SRC + `[sinks.out]\ntype = "console"\ninputs = ["gne"]\nencoding.codec = "json"\n`, expect: ['sinks.out.inputs[0]', `"gne" doesn't match any component`] },
  { kind: 'wildcard matching nothing', text: SRC + `[sinks.out]\ntype = "console"\ninputs = ["app_*"]\nencoding.codec = "json"\n`, expect: ['sinks.out.inputs[0]', 'wildcard "app_*" matches no source or transform output'] },
  {
    kind: 'cycle',
    text: SRC + `[transforms.a]\ntype = "filter"\ninputs = ["gen", "b"]\ncondition = { type = "is_log" }\n[transforms.b]\ntype = "filter"\ninputs = ["a"]\ncondition = { type = "is_log" }\n` + SINK.replace('["gen"]', '["b"]'),
    expect: [/transforms\.[ab]\.inputs/, /cycle detected: (a -> b -> a|b -> a -> b)/],
  },
  { kind: 'sink with no inputs', text: SRC + `[sinks.out]\ntype = "console"\ninputs = []\nencoding.codec = "json"\n`, expect: ['sinks.out.inputs', 'must list at least one input'] },
  { kind: 'sink without an inputs option', text: SRC + `[sinks.out]\ntype = "console"\nencoding.codec = "json"\n`, expect: ['sinks.out.inputs', 'missing required option'] },
  { kind: 'component id with a dot', text: SRC + SINK + `[sinks."out.x"]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "json"\n`, expect: ['sinks.out.x', 'must not contain "."'] },
  { kind: 'named output that does not exist', text: SRC + `[transforms.r]\ntype = "route"\ninputs = ["gen"]\nroute.a = { type = "is_log" }\n` + SINK.replace('["gen"]', '["r.b"]'), expect: ['sinks.out.inputs[0]', 'has no output named "b"', 'r.a'] },
  { kind: 'taking a sink as input', text: SRC + SINK + `[sinks.two]\ntype = "console"\ninputs = ["out"]\nencoding.codec = "json"\n`, expect: ['sinks.two.inputs[0]', '"out" is a sink'] },
  { kind: 'disk buffer without max_size', text: SRC + SINK + `buffer.type = "disk"\n`, expect: ['sinks.out.buffer.max_size', 'max_size is required when type is "disk"'] },
  { kind: 'disk buffer below the minimum', text: SRC + SINK + `buffer.type = "disk"\nbuffer.max_size = 1000\n`, expect: ['sinks.out.buffer.max_size', 'must be at least 268435488 bytes'] },
  { kind: 'disk_v1 where the sink does not allow it', text: SRC + SINK + `buffer.type = "disk_v1"\nbuffer.max_size = 300000000\n`, expect: ['sinks.out.buffer.type', 'must be one of "memory", "disk"'] },
  { kind: 'missing required environment variable', text: SRC + SINK.replace('"json"', '"${WEIR_TEST_CODEC:?set the codec}"'), expect: ['WEIR_TEST_CODEC is required: set the codec'] },
  { kind: 'unset environment variable', text: SRC + SINK.replace('"json"', '"${WEIR_TEST_UNSET_VAR}"'), expect: ['WEIR_TEST_UNSET_VAR is not set'] },
  { kind: 'no sinks', text: SRC, expect: ['no sinks defined'] },
  { kind: 'condition of an unknown type', text: SRC + `[transforms.f]\ntype = "filter"\ninputs = ["gen"]\ncondition = { type = "lua" }\n` + SINK.replace('["gen"]', '["f"]'), expect: ['transforms.f.condition.type', '"vrl", "search_query", "is_log", "is_metric", "is_trace"'] },
  { kind: 'unknown global option', text: `data_dirr = "/tmp"\n` + SRC + SINK, expect: ['data_dirr: unknown option; did you mean "data_dir"?'] },
  { kind: 'unknown global option far from any', text: `pipeline_name = "x"\n` + SRC + SINK, expect: ['pipeline_name: unknown option; allowed options: data_dir, acknowledgements, '] },
  { kind: 'YAML with the same checks', ext: 'yaml', text: `sources:\n  gen:\n    type: demo_logs\n    format: jsonn\nsinks:\n  out:\n    type: console\n    inputs: [gen]\n    encoding: { codec: json }\n`, expect: ['sources.gen.format', 'must be one of "shuffle", "apache_common"'] },
  { kind: 'JSON with the same checks', ext: 'json', text: JSON.stringify({ sources: { gen: { type: 'demo_logs', count: -1 } }, sinks: { out: { type: 'blackhole', inputs: ['gen'] } } }), expect: ['sources.gen.count', 'must be at least 0'] },
];

describe('weir validate: every kind of config error names file, component and option', () => {
  for (const c of cases) {
    it(c.kind, async () => {
      const f = file(c.ext ?? 'toml', c.text);
      const { code, out } = await validate(f);
      expect(code, out).to.equal(78);
      expect(out).to.include(f);
      for (const e of c.expect) {
        if (typeof e === 'string') expect(out).to.include(e);
        else expect(out).to.match(e);
      }
      expect(out).to.not.match(/did not match any variant/);
    });
  }

  it('reports every problem at once', async () => {
    const f = file('toml', `[sources.gen]\ntype = "demo_logs"\nformat = "nope"\n[sinks.out]\ntype = "console"\ninputs = ["gen"]\nencoding.codec = "xml"\nbuffer.max_events = 0\n`);
    const { code, out } = await validate(f);
    expect(code).to.equal(78);
    expect(out).to.include('sources.gen.format').and.include('sinks.out.encoding.codec').and.include('sinks.out.buffer.max_events');
  });

  it('duplicate ids across files name the second file and the first', async () => {
    const a = file('toml', SRC + SINK);
    const b = file('yaml', `sources:\n  gen:\n    type: demo_logs\n`);
    const { code, out } = await validate(a, b);
    expect(code).to.equal(78);
    expect(out).to.include(b).and.include('sources.gen').and.include('duplicate component id "gen"').and.include(a);
  });

  it('conflicting global options across files', async () => {
    const a = file('toml', `data_dir = "/tmp/a"\n` + SRC + SINK);
    const b = file('toml', `data_dir = "/tmp/b"\n`);
    const { code, out } = await validate(a, b);
    expect(code).to.equal(78);
    expect(out).to.include(b).and.include('data_dir').and.include('conflicting values');
  });

  it('a config split over TOML, YAML and JSON files validates, with $$ and defaults interpolated', async () => {
    const a = file('toml', `[sources.gen]\ntype = "demo_logs"\nformat = "\${WEIR_TEST_FMT:-json}"\nlines = ["costs $$5"]\n`);
    const b = file('yaml', `transforms:\n  f:\n    type: filter\n    inputs: [gen]\n    condition: { type: is_log }\n`);
    const c = file('json', JSON.stringify({ sinks: { out: { type: 'console', inputs: ['f'], encoding: { codec: 'json' } } } }));
    const { code, out } = await validate(a, b, c);
    expect(code, out).to.equal(0);
    expect(out).to.include('Validated');
  });

  it('every file in config/examples validates', async () => {
    const root = resolve(import.meta.dirname ?? '.', '../../..');
    const examplesDir = [join(root, 'config/examples'), join(root, '../config/examples')].find((d) => {
      try {
        return readdirSync(d).length > 0;
      } catch {
        return false;
      }
    })!;
    const files = readdirSync(examplesDir).filter((f) => /\.(toml|ya?ml|json)$/.test(f));
    expect(files.length).to.be.greaterThan(2);
    for (const f of [...files, '../default.toml']) {
      const { code, out } = await validate(join(examplesDir, f));
      expect(code, `${f}: ${out}`).to.equal(0);
    }
  });
});
