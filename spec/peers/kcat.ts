/** Debian's kcat (librdkafka's command-line client), an independent Kafka client for the tests. */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const KCAT = '/usr/bin/kcat';

/** Installs the Debian package when missing and running as root; otherwise fails loudly. */
export function ensureKcat(): void {
  if (existsSync(KCAT)) return;
  if (process.getuid?.() !== 0) throw new Error('kcat is not installed and the tests do not run as root: apt-get install -y kcat');
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'kcat'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (!existsSync(KCAT)) throw new Error('apt-get install kcat did not provide /usr/bin/kcat');
}

/** Runs kcat to completion; `input` goes to its stdin. */
export function kcat(args: string[], input?: string, timeoutMs = 20_000): Promise<{ stdout: string; stderr: string; code: number | null }> {
  ensureKcat();
  return new Promise((resolve) => {
    const child = execFile(KCAT, args, { timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => resolve({ stdout, stderr, code: err === null ? 0 : ((err as { code?: number }).code ?? null) }));
    child.stdin?.end(input ?? '');
  });
}

