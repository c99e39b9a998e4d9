/**
 * A fake procfs and sysfs root for the `host_metrics` source (Vector's `PROCFS_ROOT` and
 * `SYSFS_ROOT`): files with known values, so every metric and every filter can be checked exactly.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A fake root on disk; `write` replaces one file, `remove` deletes the whole tree. */
export interface FakeRoot {
  readonly proc: string;
  readonly sys: string;
  /** Two real directories listed as mounts (`/dev/fake1` ext4 and `/dev/fake2` xfs). */
  readonly mounts: { readonly ext4: string; readonly xfs: string };
  write(path: string, text: string): void;
  remove(): void;
}

/** The root's files; `cgroups` picks the layout under sys/fs/cgroup. */
export function makeFakeRoot(cgroups: 'v2' | 'hybrid' = 'v2'): FakeRoot {
  const dir = mkdtempSync(join(tmpdir(), 'weir-host-'));
  const proc = join(dir, 'proc');
  const sys = join(dir, 'sys');
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const ext4 = join(dir, 'mnt/data');
  const xfs = join(dir, 'mnt/raid0');
  mkdirSync(ext4, { recursive: true });
  mkdirSync(xfs, { recursive: true });
  write('proc/stat', ['cpu  300 20 100 5000 40 0 0 0 0 0', 'cpu0 100 10 50 2500 20 0 0 0 0 0', 'cpu1 200 10 50 2500 20 0 0 0 0 0', 'intr 1 2', 'btime 1700000000', 'processes 10', ''].join('\n'));
  write('proc/cpuinfo', ['processor\t: 0', 'physical id\t: 0', 'core id\t\t: 0', '', 'processor\t: 1', 'physical id\t: 0', 'core id\t\t: 0', ''].join('\n'));
  write(
    'proc/meminfo',
    ['MemTotal:       16000 kB', 'MemFree:         4000 kB', 'MemAvailable:    9000 kB', 'Buffers:          500 kB', 'Cached:          3000 kB', 'Active:          6000 kB', 'Shmem:            200 kB', 'SwapTotal:       2000 kB', 'SwapFree:        1500 kB', ''].join('\n'),
  );
  write('proc/vmstat', 'nr_free_pages 1000\npswpin 3\npswpout 5\n');
  write('proc/diskstats', ['   8       0 sda 10 0 200 0 20 0 400 0 0 0 0', '   8      16 sdb 1 0 2 0 3 0 4 0 0 0 0', ' 253       0 dm-0 7 0 8 0 9 0 10 0 0 0 0', ''].join('\n'));
  write(
    'proc/net/dev',
    [
      'Inter-|   Receive                                                |  Transmit',
      ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
      '    lo:    1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0',
      '  eth0:    5000      50    1    0    0     0          0         0     7000      70    2    3    0     0       0          0',
      '',
    ].join('\n'),
  );
  write('proc/loadavg', '0.50 0.25 0.10 1/100 1234\n');
  write('proc/uptime', '1000.50 1500.00\n');
  write('proc/mounts', [`/dev/fake1 ${ext4} ext4 rw 0 0`, `/dev/fake2 ${xfs} xfs rw 0 0`, `none ${ext4} tmpfs rw 0 0`, ''].join('\n'));
  write(
    'proc/net/tcp',
    [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1',
      '   1: 0100007F:0CEA 0100007F:A000 01 00000010:00000020 00:00000000 00000000     0        0 2',
      '   2: 0100007F:0CEB 0100007F:A001 01 00000001:00000002 00:00000000 00000000     0        0 3',
      '',
    ].join('\n'),
  );
  // two processes: `sshd` and `weird name)` (a parenthesis in a name), ticks 150 and 40
  write('proc/1/stat', '1 (sshd) S 0 1 1 0 -1 4194560 0 0 0 0 100 50 0 0 20 0 1 0 5000 8192000 300 18446744073709551615\n');
  write('proc/1/cmdline', '/usr/sbin/sshd\0-D\0');
  write('proc/22/stat', '22 (weird name)) S 1 22 22 0 -1 4194560 0 0 0 0 30 10 0 0 20 0 1 0 90000 4096000 100 18446744073709551615\n');
  write('proc/22/cmdline', 'weird\0');
  const cg = cgroups === 'v2' ? 'sys/fs/cgroup' : 'sys/fs/cgroup/unified';
  write(`${cg}/cgroup.controllers`, 'cpu memory\n');
  const group = (path: string, usage: number, current: number) => {
    write(`${cg}${path}/cpu.stat`, `usage_usec ${usage}\nuser_usec ${usage / 2}\nsystem_usec ${usage / 4}\nnr_periods 0\n`);
    write(`${cg}${path}/memory.current`, `${current}\n`);
    write(`${cg}${path}/memory.stat`, `anon 10\nfile 20\nkernel 5\nactive_anon 1\ninactive_anon 2\nactive_file 3\ninactive_file 4\n`);
  };
  group('', 4_000_000, 1000);
  group('/system.slice', 2_000_000, 600);
  group('/system.slice/ssh.service', 1_000_000, 300);
  group('/user.slice', 1_000_000, 400);
  if (cgroups === 'hybrid') {
    // v1 controller directories beside `unified`, read with the v2 file names
    write('sys/fs/cgroup/memory/memory.stat', 'cache 1\nrss 2\nactive_anon 7\n');
    write('sys/fs/cgroup/cpu/cpu.stat', 'nr_periods 0\n');
  }
  return { proc, sys, mounts: { ext4, xfs }, write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
