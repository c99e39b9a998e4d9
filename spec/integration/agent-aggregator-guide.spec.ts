/**
 * docs/guides/agent-aggregator.md: every weir configuration in the guide (the TOML blocks; the
 * YAML blocks are Vector's) validates through `weir validate --no-environment`, and each is one of
 * config/examples/ word for word, so the guide cannot drift from the files the examples test loads.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runWeir } from '../helpers/weir-process.js';

const guide = readFileSync(join(repoRoot, 'docs/guides/agent-aggregator.md'), 'utf8');
const blocks = [...guide.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('docs/guides/agent-aggregator.md', function () {
  this.timeout(120_000);

  it('holds the agent and the aggregator configurations, each a file of config/examples/', () => {
    expect(blocks).to.have.length(2);
    expect(blocks[0]).to.match(/type = "vector"\ninputs/);
    expect(blocks[1]).to.match(/\[sources\.agents\]\ntype = "vector"/);
    const dir = join(repoRoot, 'config/examples');
    const examples = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
    for (const b of blocks) expect(examples, b.slice(0, 120)).to.include(b);
  });

  blocks.forEach((toml, i) =>
    it(`configuration ${i + 1} validates`, async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'weir-guide-')), 'guide.toml');
      writeFileSync(file, toml);
      const r = await runWeir(['validate', '--no-environment', file]);
      expect(r.code, r.stdout + r.stderr).to.equal(0);
    }),
  );
});
