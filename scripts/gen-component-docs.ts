/**
 * Writes the generated part of every component page (docs/components/<type>.md) from the catalog:
 * the options from each component's schema and its example configuration. The hand-written text
 * above the `<!-- generated -->` marker stays; a missing page starts with the component's summary.
 *
 *   npx tsx scripts/gen-component-docs.ts [--check]
 *
 * With --check, exits 1 when a committed page differs from what would be generated.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { components } from '../connectors/index.js';
import { componentPages, pagesDir, withGenerated } from './component-docs.js';

const check = process.argv.includes('--check');
let stale = 0;
mkdirSync(pagesDir, { recursive: true });
for (const page of componentPages()) {
  const current = existsSync(page.file) ? readFileSync(page.file, 'utf8') : '';
  const summary = components.find((c) => c.type === page.type)!.summary;
  const next = withGenerated(current || `# \`${page.type}\`\n\n${summary}\n`, page.generated);
  if (next === current) continue;
  if (check) {
    console.error(`docs/components/${page.type}.md is out of date`);
    stale++;
  } else {
    writeFileSync(page.file, next);
    console.log(`wrote ${page.file.pathname}`);
  }
}
if (stale > 0) {
  console.error('run npx tsx scripts/gen-component-docs.ts');
  process.exit(1);
}
