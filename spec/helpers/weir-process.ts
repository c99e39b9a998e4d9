/** Spawns the real CLI: the compiled bin/weir under `npm test`, the sources through tsx otherwise. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = resolve(here, '../..');

/**
 * `npm test` builds first and sets WEIR_TEST_BIN=dist, so integration tests run the real compiled
 * bin/weir; a developer running one spec file gets the sources through tsx.
 */
export function weirArgs(args: string[]): { cmd: string; argv: string[] } {
  if (process.env.WEIR_TEST_BIN === 'dist') {
    if (!existsSync(join(repoRoot, 'dist/bin/weir.js'))) throw new Error('WEIR_TEST_BIN=dist but dist/bin/weir.js is missing: run npm run build');
    return { cmd: process.execPath, argv: [join(repoRoot, 'bin/weir'), ...args] };
  }
  return { cmd: process.execPath, argv: ['--import', 'tsx', join(repoRoot, 'bin/weir.ts'), ...args] };
}

export interface WeirProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startWeir(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): WeirProcess {
  const { cmd, argv } = weirArgs(args);
  const child = spawn(cmd, argv, { cwd: opts.cwd ?? repoRoot, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs to completion and returns the exit code and output. */
export async function runWeir(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startWeir(args, opts);
  const { code } = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
