/**
 * Runs N weir processes as one consumer group of a broker: each has the same source (the broker's
 * TOML) and writes every message body as one line into its own file, acknowledging after the
 * write. `run` counts what arrived where: unique bodies, duplicates, and whether any body arrived
 * at two processes.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type WeirProcess, startWeir } from '../../helpers/weir-process.js';

/** What one run of a group delivered. */
export interface GroupResult {
  /** Distinct bodies delivered. */
  readonly unique: number;
  /** Lines beyond the first of each body (redeliveries). */
  readonly duplicates: number;
  /** Bodies that more than one process wrote. */
  readonly acrossProcesses: number;
  /** Lines per process. */
  readonly perProcess: number[];
  /** Messages per second from the first line to the last, over all processes. */
  readonly rate: number;
}

/** Bodies `m0` … `m<n-1>`. */
export const bodies = (n: number): string[] => Array.from({ length: n }, (_, i) => `m${i}`);

/**
 * Starts `processes` daemons on `sourceToml`, waits until `expected` distinct bodies arrived (or
 * `timeoutMs`), then stops them; `onProgress` sees the running count of distinct bodies and may
 * kill a process (`kill(i)`).
 */
export async function runGroup(opts: {
  sourceToml: string;
  processes: number;
  expected: number;
  timeoutMs: number;
  onProgress?: (unique: number, kill: (i: number) => void) => void;
}): Promise<GroupResult> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-scale-out-'));
  const files = Array.from({ length: opts.processes }, (_, i) => join(dir, `out-${i}.txt`));
  const procs: WeirProcess[] = files.map((out, i) => {
    const cfg = join(dir, `weir-${i}.toml`);
    writeFileSync(
      cfg,
      `data_dir = "${dir}"\n${opts.sourceToml}\n[sinks.out]\ntype = "file"\ninputs = ["in"]\npath = "${out}"\nencoding.codec = "text"\nacknowledgements.enabled = true\n`,
    );
    return startWeir(['--config', cfg], { env: { WEIR_THREADS: '1' } });
  });
  const killed = new Set<number>();
  const kill = (i: number) => {
    if (killed.has(i)) return;
    killed.add(i);
    procs[i]!.child.kill('SIGKILL');
  };
  // each file is read from where the last look stopped: the whole run stays linear in what arrived
  const lines: string[][] = files.map(() => []);
  const offsets = files.map(() => 0);
  const tails = files.map(() => '');
  const seenBodies = new Set<string>();
  const read = (): void => {
    for (const [i, f] of files.entries()) {
      if (!existsSync(f)) continue;
      const size = statSync(f).size;
      if (size <= offsets[i]!) continue;
      const buf = Buffer.alloc(size - offsets[i]!);
      const fd = openSync(f, 'r');
      try {
        readSync(fd, buf, 0, buf.length, offsets[i]!);
      } finally {
        closeSync(fd);
      }
      offsets[i] = size;
      const parts = (tails[i] + buf.toString('utf8')).split('\n');
      tails[i] = parts.pop()!;
      for (const l of parts) {
        lines[i]!.push(l);
        seenBodies.add(l);
      }
    }
  };
  const deadline = Date.now() + opts.timeoutMs;
  let first = 0;
  let last = 0;
  let seen = 0;
  try {
    for (;;) {
      read();
      const total = lines.reduce((n, l) => n + l.length, 0);
      if (total > 0 && first === 0) first = Date.now();
      if (total > seen) {
        seen = total;
        last = Date.now();
      }
      const unique = seenBodies.size;
      opts.onProgress?.(unique, kill);
      if (unique >= opts.expected) break;
      for (const [i, p] of procs.entries())
        if (!killed.has(i) && p.child.exitCode !== null) throw new Error(`weir ${i} exited with ${p.child.exitCode}: ${p.stderr().slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`after ${opts.timeoutMs} ms only ${unique} of ${opts.expected} bodies arrived; lines per process ${lines.map((l) => l.length).join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    for (const [i, p] of procs.entries()) if (!killed.has(i) && p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
  }
  // what the stopping processes wrote last counts too
  read();
  rmSync(dir, { recursive: true, force: true });
  const owner = new Map<string, number>();
  let duplicates = 0;
  let acrossProcesses = 0;
  for (const [i, ls] of lines.entries())
    for (const body of ls) {
      const o = owner.get(body);
      if (o === undefined) owner.set(body, i);
      else {
        duplicates++;
        if (o !== i && o >= 0) {
          acrossProcesses++;
          owner.set(body, -1);
        }
      }
    }
  return { unique: owner.size, duplicates, acrossProcesses, perProcess: lines.map((l) => l.length), rate: owner.size / Math.max(0.001, (last - first) / 1000) };
}
