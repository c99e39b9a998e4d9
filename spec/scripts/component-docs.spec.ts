/** docs/components/: one page per catalog type, its generated part current, its examples valid. */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../bin/cli/validate.js';
import { components } from '../../connectors/index.js';
import { componentPages, exampleOf, generatedOf, withGenerated } from '../../scripts/component-docs.js';

async function validate(file: string): Promise<{ code: number; out: string }> {
  let out = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: true }, w);
  return { code, out };
}

describe('docs/components: the component pages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weir-component-pages-'));

  it('every catalog type has a page, and no page names a type the catalog lacks', () => {
    const types = new Set(components.map((c) => c.type));
    const pages = componentPages();
    expect(pages.map((p) => p.type).sort()).to.deep.equal([...types].sort());
    for (const p of pages) expect(existsSync(p.file), `docs/components/${p.type}.md`).to.equal(true);
  });

  for (const page of componentPages()) {
    it(`${page.type}.md: the generated part is current (npx tsx scripts/gen-component-docs.ts), a hand-written part is above it`, () => {
      const text = readFileSync(page.file, 'utf8');
      expect(generatedOf(text), 'the generated part').to.equal(page.generated);
      const hand = text.slice(0, text.indexOf('<!-- generated -->')).trim();
      expect(hand.split('\n').length, 'hand-written lines').to.be.greaterThan(2);
      expect(hand).to.match(new RegExp(`^# \`${page.type}\``));
    });
  }

  for (const def of components) {
    it(`${def.kind} ${def.type}: the example on its page validates and uses it`, async () => {
      const example = exampleOf(def);
      expect(example, 'an example in connectors/examples.ts').to.be.a('string');
      const page = readFileSync(new URL(`../../docs/components/${def.type}.md`, import.meta.url), 'utf8');
      expect(generatedOf(page)).to.include(example!.trimEnd());
      expect(example).to.match(new RegExp(`\\[${def.kind}s\\.[^\\]]+\\]\\ntype = "${def.type}"\\n`));
      const file = join(dir, `${def.kind}-${def.type}.toml`);
      writeFileSync(file, example!);
      const r = await validate(file);
      expect(r.code, `${example}\n${r.out}`).to.equal(0);
    });
  }

  it('regenerating replaces only the generated part; the hand-written part and what follows stay', () => {
    const page = componentPages().find((p) => p.type === 'socket')!;
    const stale = '# `socket`\n\nhand text\n\n<!-- generated -->\nold options\n<!-- /generated -->\n';
    const next = withGenerated(stale, page.generated);
    expect(next.startsWith('# `socket`\n\nhand text\n\n<!-- generated -->')).to.equal(true);
    expect(next).not.to.include('old options');
    expect(generatedOf(next)).to.equal(page.generated);
    expect(withGenerated('# `socket`\n\nhand text\n', page.generated)).to.equal(`# \`socket\`\n\nhand text\n\n${page.generated}`);
  });
});
