/**
 * Real journal files for the journal source: export-format text built here, written to
 * `<dir>/<name>.journal` by Debian's `systemd-journal-remote` (installed with apt-get when missing
 * and running as root; otherwise the test fails loudly), read back by the real `journalctl`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const CANDIDATES = ['/lib/systemd/systemd-journal-remote', '/usr/lib/systemd/systemd-journal-remote'];

function findRemote(): string | undefined {
  const known = CANDIDATES.find((p) => existsSync(p));
  if (known) return known;
  try {
    return execFileSync('dpkg', ['-L', 'systemd-journal-remote'], { encoding: 'utf8' }).split('\n').find((l) => l.endsWith('/systemd-journal-remote'));
  } catch {
    return undefined;
  }
}

/** The systemd-journal-remote binary, installed first when missing and possible. */
export function journalRemote(): string {
  let bin = findRemote();
  if (bin) return bin;
  if (process.getuid?.() !== 0) throw new Error('systemd-journal-remote is not installed and the tests do not run as root: apt-get install -y systemd-journal-remote');
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'systemd-journal-remote'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  bin = findRemote();
  if (!bin) throw new Error('apt-get install systemd-journal-remote did not provide the binary');
  return bin;
}

/** This machine's boot id as journal fields spell it (no dashes). */
export const CURRENT_BOOT = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, '');

/** One journal entry: text fields, or bytes for binary and non-UTF-8 values. */
export type Entry = Record<string, string | Buffer>;

/** Export format: `FIELD=value` lines; a binary value as `FIELD`, a 64-bit LE length, the bytes; a blank line ends the entry. */
export function exportText(entries: readonly Entry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    for (const [k, val] of Object.entries(e)) {
      if (typeof val === 'string' && !val.includes('\n')) parts.push(Buffer.from(`${k}=${val}\n`));
      else {
        const bytes = typeof val === 'string' ? Buffer.from(val) : val;
        const len = Buffer.alloc(8);
        len.writeBigUInt64LE(BigInt(bytes.length));
        parts.push(Buffer.from(`${k}\n`), len, bytes, Buffer.from('\n'));
      }
    }
    parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** Appends `entries` to `<dir>/<name>.journal` (created when new). */
export function writeJournal(dir: string, name: string, entries: readonly Entry[]): void {
  const r = spawnSync(journalRemote(), [`--output=${dir}/${name}.journal`, '-'], { input: exportText(entries) });
  if (r.status !== 0) throw new Error(`systemd-journal-remote exited ${r.status}: ${r.stderr.toString()}`);
}

let clock = 1_700_000_000_000_000;
let mono = 1_000_000;

/** An entry of `unit` with increasing realtime and monotonic stamps; `extra` fields added last. */
export function entry(message: string | Buffer, unit: string, extra: Entry = {}, boot = CURRENT_BOOT): Entry {
  clock += 1000;
  mono += 1000;
  return {
    __REALTIME_TIMESTAMP: String(clock),
    __MONOTONIC_TIMESTAMP: String(mono),
    _BOOT_ID: boot,
    MESSAGE: message,
    PRIORITY: '6',
    _SYSTEMD_UNIT: unit,
    SYSLOG_IDENTIFIER: unit.replace(/\..*$/, ''),
    _HOSTNAME: 'testhost',
    _PID: '100',
    ...extra,
  };
}
