/** docs/guides/kafka.md: every TOML configuration in the guide validates through `weir validate --no-environment`. */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runWeir } from '../helpers/weir-process.js';

const guide = readFileSync(join(repoRoot, 'docs/guides/kafka.md'), 'utf8');
const blocks = [...guide.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('docs/guides/kafka.md', function () {
  this.timeout(120_000);

  it('holds the agent and the aggregator configurations', () => {
    expect(blocks).to.have.length(2);
    expect(blocks[0]).to.match(/type = "kafka"[\s\S]*topic = /);
    expect(blocks[1]).to.match(/type = "kafka"[\s\S]*group_id = /);
  });

  blocks.forEach((toml, i) =>
    it(`configuration ${i + 1} validates`, async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'weir-guide-')), 'guide.toml');
      writeFileSync(file, toml);
      // the passwords come from the environment, as the guide says
      const r = await runWeir(['validate', '--no-environment', file], { env: { KAFKA_AGENT_PASSWORD: 'x', KAFKA_AGGREGATOR_PASSWORD: 'y' } });
      expect(r.code, r.stdout + r.stderr).to.equal(0);
    }),
  );
});
