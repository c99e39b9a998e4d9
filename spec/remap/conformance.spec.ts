/**
 * VRL conformance corpus (`../shared/conformance/vrl` beside the repository, or `WEIR_VRL_CORPUS`):
 * every case must pass unless listed in conformance-known-failures.txt; pass counts are reported
 * per folder. Without the corpus the suite registers no cases and says so, except under CI=true,
 * where a missing corpus fails.
 */
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCase, runCase } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const corpus = process.env.WEIR_VRL_CORPUS ? resolve(process.env.WEIR_VRL_CORPUS) : resolve(repoRoot, '..', 'shared', 'conformance', 'vrl');
const hasCorpus = existsSync(corpus);
const isCI = process.env.CI === 'true';
const knownFile = join(here, 'conformance-known-failures.txt');

function listCases(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) listCases(p, out);
    else if (name.endsWith('.vrl')) out.push(p);
  }
  return out;
}

function knownFailures(): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of readFileSync(knownFile, 'utf8').split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const [path, ...reason] = t.split(/\s+#\s*/);
    m.set(path!.trim(), reason.join(' # '));
  }
  return m;
}

const FOLDERS = ['expressions', 'examples', 'issues', 'internal', 'diagnostics', 'functions'];

if (!hasCorpus && !isCI)
  console.warn(`VRL conformance corpus not found at ${corpus}: conformance cases not run (set WEIR_VRL_CORPUS to its vrl folder)`);

describe('remap conformance (VRL corpus)', function () {
  this.timeout(60_000);
  if (!hasCorpus && !isCI) return;

  it('finds the corpus', () => {
    expect(hasCorpus, `VRL conformance corpus missing at ${corpus} (set WEIR_VRL_CORPUS)`).to.equal(true);
  });

  it('passes every case not listed as a known failure', () => {
    if (!hasCorpus) throw new Error(`VRL conformance corpus missing at ${corpus}`);
    const known = knownFailures();
    const counts = new Map<string, { pass: number; total: number }>();
    const unexpected: string[] = [];
    const fixed: string[] = [];
    for (const file of listCases(corpus)) {
      const rel = relative(corpus, file);
      if (rel.startsWith('fixme/')) continue;
      const top = rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : 'other';
      const folder = FOLDERS.includes(top) ? top : 'other';
      const c = counts.get(folder) ?? { pass: 0, total: 0 };
      counts.set(folder, c);
      c.total++;
      let pass: boolean;
      let got: string;
      try {
        ({ pass, got } = runCase(readCase(file)));
      } catch (e) {
        pass = false;
        got = `crash: ${(e as Error).stack}`;
      }
      if (pass) {
        c.pass++;
        if (known.has(rel)) fixed.push(rel);
      } else if (!known.has(rel)) unexpected.push(`${rel}\n    got: ${got.split('\n').slice(0, 8).join('\n         ')}`);
    }
    let p = 0;
    let t = 0;
    const lines: string[] = [];
    for (const f of [...FOLDERS, 'other']) {
      const c = counts.get(f);
      if (!c) continue;
      p += c.pass;
      t += c.total;
      lines.push(`${f}: ${c.pass}/${c.total}`);
    }
    lines.push(`total: ${p}/${t} (${((100 * p) / t).toFixed(1)}%)`);
    console.log(`      VRL conformance — ${lines.join(', ')}`);
    if (fixed.length) console.log(`      now passing (remove from known failures): ${fixed.join(', ')}`);
    expect(unexpected, `unexpected conformance failures:\n${unexpected.join('\n')}`).to.deep.equal([]);
  });
});
