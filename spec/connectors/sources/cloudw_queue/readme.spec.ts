/** The `cloudw_queue` page's examples and config/examples/cloudw_queue.toml validate. */
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

describe('cloudw_queue: docs and config examples', () => {
  it('every TOML block of the hand-written part of docs/components/cloudw_queue.md validates, and names the component', async () => {
    const page = readFileSync(join(repoRoot, 'docs/components/cloudw_queue.md'), 'utf8');
    const start = page.indexOf("## Where it differs from Vector's `aws_sqs`");
    expect(start).to.be.greaterThan(0);
    const end = page.indexOf('<!-- generated -->');
    const blocks = [...page.slice(start, end).matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).to.have.length(2);
    const dir = mkdtempSync(join(tmpdir(), 'weir-queue-readme-'));
    for (const [i, text] of blocks.entries()) {
      expect(text).to.include('type = "cloudw_queue"');
      const file = join(dir, `b${i}.toml`);
      writeFileSync(file, text);
      const r = await validate(file);
      expect(r.code, `${text}\n${r.out}`).to.equal(0);
    }
  });

  it('config/examples/cloudw_queue.toml validates', async () => {
    const r = await validate(join(repoRoot, 'config/examples/cloudw_queue.toml'));
    expect(r.code, r.out).to.equal(0);
  });
});
