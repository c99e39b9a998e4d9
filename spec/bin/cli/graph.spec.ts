/** `weir graph`: DOT and Mermaid as `vector graph` draws them, wildcards expanded, bad configs refused. */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { graphCommand } from '../../../bin/cli/graph.js';
import { repoRoot, runWeir } from '../../helpers/weir-process.js';

const example = (name: string) => join(repoRoot, 'config/examples', name);

function graph(files: string[], format: 'dot' | 'mermaid' = 'dot'): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        add(chunk.toString());
        done();
      },
    });
  const code = graphCommand({ files, format }, sink((s) => (out += s)), sink((s) => (err += s)));
  return { code, out, err };
}

describe('weir graph', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'weir-graph-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('DOT through the CLI: shapes by kind, named outputs as edge labels', async () => {
    const r = await runWeir(['graph', '-c', example('route-and-filter.toml')]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(
      [
        'digraph {',
        '  "web" [shape="trapezium"]',
        '  "app" [shape="trapezium"]',
        '  "by_kind" [shape="diamond"]',
        '  "web" -> "by_kind"',
        '  "app" -> "by_kind"',
        '  "print" [shape="invtrapezium"]',
        '  "by_kind" -> "print" [label="logs"]',
        '  "rest" [shape="invtrapezium"]',
        '  "by_kind" -> "rest" [label="metrics"]',
        '  "by_kind" -> "rest" [label="_unmatched"]',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('Mermaid', () => {
    const r = graph([example('route-and-filter.toml')], 'mermaid');
    expect(r.code).to.equal(0);
    expect(r.out).to.equal(
      [
        'flowchart TD;',
        '',
        '  %% Sources',
        '  web[/web/]',
        '  app[/app/]',
        '',
        '  %% Transforms',
        '  by_kind{by_kind}',
        '  web --> by_kind',
        '  app --> by_kind',
        '',
        '  %% Sinks',
        '  print[\\print\\]',
        '  by_kind -->|logs| print',
        '  rest[\\rest\\]',
        '  by_kind -->|metrics| rest',
        '  by_kind -->|_unmatched| rest',
        '',
        '',
      ].join('\n'),
    );
  });

  it('wildcard inputs become one edge per matched output', () => {
    const r = graph([example('wildcards.json')]);
    expect(r.code).to.equal(0);
    expect(r.out).to.include('  "app_web" -> "logs"\n  "app_db" -> "logs"\n');
    expect(r.out).to.include('  "logs" -> "out"\n');
  });

  it('ids that need quoting: DOT escapes them, Mermaid labels a safe id', () => {
    const file = join(dir, 'odd.yaml');
    writeFileSync(file, 'sources:\n  "in-put": { type: stdin }\nsinks:\n  \'say"hi"\': { type: blackhole, inputs: [in-put] }\n');
    const dot = graph([file]);
    expect(dot.out).to.include('  "say\\"hi\\"" [shape="invtrapezium"]\n  "in-put" -> "say\\"hi\\""\n');
    const mermaid = graph([file], 'mermaid');
    expect(mermaid.out).to.include('  in_put[/"in-put"/]\n');
    expect(mermaid.out).to.include('  say_hi_[\\"say#quot;hi#quot;"\\]\n  in_put --> say_hi_\n');
  });

  it('a config with problems: each on stderr, exit 78, no graph', () => {
    const file = join(dir, 'bad.toml');
    writeFileSync(file, '[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "blackhole"\ninputs = ["nope"]\n');
    const r = graph([file]);
    expect(r.code).to.equal(78);
    expect(r.out).to.equal('');
    expect(r.err).to.include('"nope" doesn\'t match any component');
  });
});
