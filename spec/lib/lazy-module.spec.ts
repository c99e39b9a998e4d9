/**
 * lib/lazy-module.ts: importing the CLI (the catalog, config loading, the topology, `tap`) loads none
 * of the packages only some components need; each loads when its accessor is first called. A child process records every module it loads: ES
 * modules through a load hook (written to a file as each loads, so the list is complete once the
 * import resolves) and CommonJS files through the `require` resolver.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const LAZY = [
  '@aws-sdk/client-s3',
  '@aws-sdk/client-kinesis',
  '@aws-sdk/credential-providers',
  'google-auth-library',
  '@grpc/grpc-js',
  'protobufjs',
  'msgpackr',
  'yaml',
  'classic-level',
  'avsc',
  'nats',
];

const here = (p: string) => JSON.stringify(fileURLToPath(new URL(p, import.meta.url)));

const HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
`;

const child = (file: string) => `
import { register, Module } from 'node:module';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const required = [];
const resolve = Module._resolveFilename;
Module._resolveFilename = function (...args) { const f = resolve.apply(this, args); required.push(pathToFileURL(f).href); return f; };
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { file: ${JSON.stringify(file)} } });
const lazy = ${JSON.stringify(LAZY)};
const seen = () => {
  const urls = [...readFileSync(${JSON.stringify(file)}, 'utf8').split('\\n'), ...required];
  return lazy.filter((p) => urls.some((u) => u.includes('/node_modules/' + p + '/')));
};
await import(${here('../../bin/cli/main.ts')});
const afterCli = seen();
const { lazyModule } = await import(${here('../../lib/lazy-module.ts')});
for (const p of lazy) lazyModule(p)();
console.log(JSON.stringify({ afterCli, afterUse: seen() }));
`;

describe('lib/lazy-module', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'weir-lazy-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the packages only some components need unloaded until first use', async () => {
    const file = join(dir, 'loaded.txt');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child(file)], (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    const { afterCli, afterUse } = JSON.parse(out.trim().split('\n').pop()!) as { afterCli: string[]; afterUse: string[] };
    expect(afterCli).to.deep.equal([]);
    // the record sees each package once it is used: an import at module level would have shown
    expect(afterUse).to.deep.equal(LAZY);
  });
});
