/** weir's version from package.json (two folders up from bin/cli/, three from dist/bin/cli/). */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version, or `unknown` when package.json cannot be read. */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'weir' && pkg.version) return (cached = pkg.version);
    } catch {
      // try the next location
    }
  }
  return (cached = 'unknown');
}
