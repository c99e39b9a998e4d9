/** The `cloudg_*` docs (credentials guide, component pages) and config/examples/cloudg_*.toml: examples validate. */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { repoRoot } from '../../../helpers/weir-process.js';

async function validate(file: string): Promise<{ code: number; out: string }> {
  let out = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w);
  return { code, out };
}

describe('cloudg_*: docs and config examples', () => {
  const guide = readFileSync(join(repoRoot, 'docs/guides/cloud-credentials.md'), 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'weir-cloudg-readme-'));

  it('the credentials guide has a "Google Cloud credentials" section naming every source in order', () => {
    const start = guide.indexOf('## Google Cloud credentials (`cloudg_*`)');
    expect(start).to.be.greaterThan(0);
    const end = guide.indexOf('\n## ', start + 1);
    const text = guide.slice(start, end < 0 ? undefined : end);
    const order = ['`credentials_path`', '`api_key`', '`CLOUDG_APPLICATION_CREDENTIALS`', 'instance service account'].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).to.equal(true);
    expect([...order].sort((a, b) => a - b)).to.deep.equal(order);
  });

  for (const type of ['cloudg_pubsub', 'cloudg_object_storage'] as const) {
    it(`every TOML block of docs/components/${type}.md validates`, async () => {
      const page = readFileSync(join(repoRoot, `docs/components/${type}.md`), 'utf8');
      const blocks = [...page.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1]!);
      expect(blocks.length).to.be.greaterThan(1);
      for (const [i, text] of blocks.entries()) {
        expect(text).to.include(`type = "${type}"`);
        const file = join(dir, `${type}-${i}.toml`);
        writeFileSync(file, text);
        const r = await validate(file);
        expect(r.code, `${text}\n${r.out}`).to.equal(0);
      }
    });

    it(`config/examples/${type}.toml validates`, async () => {
      const r = await validate(join(repoRoot, `config/examples/${type}.toml`));
      expect(r.code, r.out).to.equal(0);
    });
  }
});
