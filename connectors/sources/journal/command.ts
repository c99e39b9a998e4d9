/** The journalctl command line (as Vector builds it). */
import { execFile } from 'node:child_process';
import type { JournalSourceConfig } from './config.js';

/** systemd's version from `<journalctl> --version` (second word of the first line). */
export function journalctlVersion(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(path, ['--version'], { timeout: 30_000 }, (err, stdout) => {
      if (err) return reject(new Error(`running "${path} --version" failed: ${err.message}`));
      const word = stdout.trim().split(/\s+/)[1] ?? '';
      const version = Number.parseInt(word, 10);
      if (!Number.isFinite(version)) return reject(new Error(`"${path} --version" printed no systemd version: ${JSON.stringify(stdout.slice(0, 80))}`));
      resolve(version);
    });
  });
}

/** Where reading starts: after a saved cursor, from now, or the whole history. */
export type StartAt = { cursor: string } | 'now' | 'all';

/**
 * Arguments for `journalctl`: follow, every field, JSON lines, then directory, boot and start flags.
 * systemd 250+ makes `--follow` imply the latest boot, so reading every boot there needs `--merge`
 * (`--boot=all` from 258 on); before 250 the current boot needs `--boot`.
 */
export function journalctlArgs(config: JournalSourceConfig, version: number, start: StartAt): string[] {
  const args = ['--follow', '--all', '--show-cursor', '--output=json'];
  if (config.journal_directory !== undefined) args.push(`--directory=${config.journal_directory}`);
  if (config.current_boot_only) {
    if (version < 250) args.push('--boot');
  } else if (version >= 258) args.push('--boot=all');
  else if (version >= 250) args.push('--merge');
  if (typeof start === 'object') args.push(`--after-cursor=${start.cursor}`);
  else args.push(start === 'now' ? '--since=now' : '--since=2000-01-01');
  return args;
}
