import { expect } from 'chai';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runThreaded } from '../../helpers/threaded-run.js';

/** Lines naming an app (three of them), every seventh naming none, some with quotes and non-ASCII text. */
const LINES = Array.from({ length: 4_000 }, (_, i) => (i % 7 === 3 ? `line ${i} orphan` : `line ${i} app${i % 3} ${i % 5 === 2 ? '"quoted" h\u00e9llo' : 'plain'}`));
/** remap: the app from the line; a line without one leaves the field out, so its path does not render. */
const REMAP = 'm = parse_regex(string!(.message), r\'(?P<app>app\\d)\') ?? {}\nif exists(m.app) { .app = m.app }';

describe('file sink in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);

  const cases: [string, Record<string, unknown>][] = [
    ['json lines', { encoding: { codec: 'json', except_fields: ['host', 'port', 'timestamp', 'source_type'] } }],
    ['text, character_delimited', { encoding: { codec: 'text' }, framing: { method: 'character_delimited', character_delimited: { delimiter: '|' } } }],
  ];
  for (const [name, sinkOptions] of cases)
    it(`socket -> remap -> file writes the files --threads 1 writes, and refuses the same events: ${name}`, async () => {
      const results: { files: Record<string, string>; sent: number; templateErrors: number }[] = [];
      for (const threads of [1, 2]) {
        const dir = mkdtempSync(join(tmpdir(), 'weir-file-threads-'));
        try {
          const topology = await runThreaded(
            threads,
            (address) => ({
              sources: { in: { type: 'socket', mode: 'tcp', address } },
              transforms: { t: { type: 'remap', inputs: ['in'], source: REMAP } },
              sinks: { out: { type: 'file', inputs: ['t'], path: join(dir, '{{ app }}.log'), ...sinkOptions } },
            }),
            LINES,
            (sum) => sum('component_sent_events_total', 'out') + sum('component_discarded_events_total', 'out') >= LINES.length,
          );
          const files = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
          const sum = (metric: string) => topology.registry.sum(metric, { component_id: 'out' });
          results.push({ files, sent: sum('component_sent_events_total'), templateErrors: sum('component_errors_total') });
          if (threads === 2) expect(topology.workerPool!.recycled, 'answers given back to the workers').to.be.greaterThan(0);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      const [one, two] = results;
      expect(Object.keys(one!.files).sort()).to.deep.equal(['app0.log', 'app1.log', 'app2.log']);
      const orphans = LINES.filter((l) => l.includes('orphan')).length;
      expect(one!.sent).to.equal(LINES.length - orphans);
      expect(one!.templateErrors).to.equal(orphans);
      expect(one!.files['app1.log']).to.contain('line 1 app1');
      expect(two).to.deep.equal(one);
    });
});
