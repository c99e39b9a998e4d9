/**
 * Writes docs/remap-functions.md from the remap standard library's declarations.
 *
 *   npx tsx scripts/gen-remap-docs.ts [--check]
 *
 * With --check, exits 1 when the committed file differs from what would be generated.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { functionsMarkdown } from '../remap/reference.js';

const target = new URL('../docs/remap-functions.md', import.meta.url);
const text = functionsMarkdown();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as out of date
  }
  if (current !== text) {
    console.error('docs/remap-functions.md is out of date: run npx tsx scripts/gen-remap-docs.ts');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target.pathname}`);
}
