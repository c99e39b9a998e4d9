/** The README's `cloudg_*` examples and config/examples/cloudg_*.toml validate. */
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

describe('cloudg_*: README and config examples', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'weir-cloudg-readme-'));

  it('the README has a "Google Cloud credentials" section naming every source in order', () => {
    const start = readme.indexOf('### Google Cloud credentials (`cloudg_*`)');
    expect(start).to.be.greaterThan(0);
    const text = readme.slice(start, readme.indexOf('\n### ', start + 1));
    const order = ['`credentials_path`', '`api_key`', '`CLOUDG_APPLICATION_CREDENTIALS`', 'instance service account'].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).to.equal(true);
    expect([...order].sort((a, b) => a - b)).to.deep.equal(order);
  });

  for (const [heading, type] of [
    ['### Publish/subscribe (`cloudg_pubsub`)', 'cloudg_pubsub'],
    ['### Object storage (`cloudg_object_storage`)', 'cloudg_object_storage'],
  ] as const) {
    it(`every TOML block of the ${type} README section validates`, async () => {
      const start = readme.indexOf(heading);
      expect(start).to.be.greaterThan(0);
      const end = readme.indexOf('\n#', start + heading.length);
      const blocks = [...readme.slice(start, end).matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1]!);
      expect(blocks.length).to.be.greaterThan(0);
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
