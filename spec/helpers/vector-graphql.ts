/**
 * Vector's own GraphQL client documents (queries, subscriptions and its API tests' documents),
 * read from the reference beside the repository (`../shared/reference/vector-graphql`, or
 * `WEIR_VECTOR_GRAPHQL`), the way the VRL corpus is: the API must answer them exactly as written.
 * Paths are `queries/…`, `subscriptions/…` (Vector's graphql/ folder) and `tests/…`.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from './weir-process.js';

export const vectorGraphqlRoot = process.env.WEIR_VECTOR_GRAPHQL
  ? resolve(process.env.WEIR_VECTOR_GRAPHQL)
  : resolve(repoRoot, '..', 'shared', 'reference', 'vector-graphql');

/** Missing documents fail the specs that need them, naming where they were looked for. */
function present(): void {
  if (!existsSync(join(vectorGraphqlRoot, 'graphql', 'queries')))
    throw new Error(`Vector's GraphQL documents are missing at ${vectorGraphqlRoot} (the reference beside the repository; or set WEIR_VECTOR_GRAPHQL)`);
}

const fileOf = (rel: string) => join(vectorGraphqlRoot, rel.startsWith('tests/') ? '' : 'graphql', rel);

/** One document by its path. */
export function vectorDoc(rel: string): string {
  present();
  return readFileSync(fileOf(rel), 'utf8');
}

/** Every document, by path. */
export function vectorDocs(): Map<string, string> {
  present();
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}${e.name}/`);
      else if (e.name.endsWith('.graphql')) out.set(rel + e.name, readFileSync(join(dir, e.name), 'utf8'));
    }
  };
  walk(join(vectorGraphqlRoot, 'graphql'), '');
  walk(join(vectorGraphqlRoot, 'tests'), 'tests/');
  return out;
}
