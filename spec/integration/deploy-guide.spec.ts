/**
 * docs/deploy.md: every TOML configuration validates through `weir validate --no-environment`,
 * the agent and aggregator units it names exist, and each broker has its agent and aggregator.

 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalog } from '../../connectors/index.js';
import { repoRoot, runWeir } from '../helpers/weir-process.js';

const guide = readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8');
const blocks = [...guide.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1]!);
const known = new Set((['source', 'transform', 'sink'] as const).flatMap((kind) => catalog.types(kind)));
const typesOf = (toml: string) => [...toml.matchAll(/^type = "([^"]+)"$/gm)].map((m) => m[1]!);

describe('docs/deploy.md', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'weir-deploy-guide-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has an agent and an aggregator configuration for NATS, Pub/Sub, SQS, Kafka and the failover path', () => {
    const pairs: [string, string][] = [
      ['nats', 'nats'],
      ['cloudg_pubsub', 'cloudg_pubsub'],
      ['cloudw_queue', 'cloudw_queue'],
      ['kafka', 'kafka'],
      ['vector', 'vector'],
    ];
    for (const [sink, source] of pairs) {
      expect(blocks.some((b) => b.includes(`[sinks.`) && new RegExp(`\\[sinks\\.\\w+\\]\\ntype = "${sink}"`).test(b)), `agent with a ${sink} sink`).to.equal(true);
      expect(blocks.some((b) => new RegExp(`\\[sources\\.\\w+\\]\\ntype = "${source}"`).test(b)), `aggregator with a ${source} source`).to.equal(true);
    }
    // every sink of the guide waits for delivery
    for (const b of blocks) for (const sink of b.split('[sinks.').slice(1)) expect(sink, sink.slice(0, 60)).to.include('acknowledgements.enabled = true');
  });

  it('names units that exist', () => {
    for (const unit of ['weir-agent.service', 'weir-aggregator@.service']) {
      expect(guide).to.include(`deploy/systemd/${unit}`);
      expect(existsSync(join(repoRoot, 'deploy/systemd', unit)), unit).to.equal(true);
    }
  });

  blocks.forEach((toml, i) =>
    it(`configuration ${i + 1} (${typesOf(toml).join(', ')}) validates`, async () => {
      for (const t of typesOf(toml)) expect(known.has(t), `configuration ${i + 1} uses ${t}, which is not in the catalog`).to.equal(true);
      const file = join(dir, `c${i}.toml`);
      writeFileSync(file, toml);
      const r = await runWeir(['validate', '--no-environment', file]);
      expect(r.code, r.stdout + r.stderr).to.equal(0);
    }),
  );
});
