/** `host_metrics` on a fake /proc and /sys root: every collector's values and every filter, exactly. */
import { expect } from 'chai';
import { rmSync, statfsSync } from 'node:fs';
import { hostname } from 'node:os';
import { type FakeRoot, makeFakeRoot } from './fake-root.js';
import { all, one, scrapes, value } from './helpers.js';

const names = (batch: readonly { name: string }[]) => [...new Set(batch.map((m) => m.name))];
const tagValues = (batch: readonly { name: string; tags?: Record<string, unknown> }[], name: string, tag: string) =>
  all(batch as never, name).map((m) => m.tags?.[tag]).sort();

describe('connectors/sources/host_metrics on a fake root', () => {
  let root: FakeRoot;
  beforeEach(() => {
    root = makeFakeRoot();
  });
  afterEach(() => root.remove());

  const scrape = async (o: Record<string, unknown>) => (await scrapes(o, 1, root)).batches[0]!;

  it('tags every metric with collector and host, kind absolute, namespace host, one timestamp', async () => {
    const batch = await scrape({});
    expect(batch.length).to.be.greaterThan(50);
    for (const m of batch) {
      expect(m.kind).to.equal('absolute');
      expect(m.namespace).to.equal('host');
      expect(m.tags!.host).to.equal(hostname());
      expect(m.tags!.collector).to.be.a('string');
      expect(m.timestamp!.ms).to.equal(batch[0]!.timestamp!.ms);
    }
  });

  it('cpu: seconds per cpu and mode (ticks / 100), logical and physical counts', async () => {
    const batch = await scrape({ collectors: ['cpu'] });
    expect(value(one(batch, 'cpu_seconds_total', { cpu: '1', mode: 'user' }))).to.equal(2);
    expect(value(one(batch, 'cpu_seconds_total', { cpu: '0', mode: 'idle' }))).to.equal(25);
    expect(value(one(batch, 'cpu_seconds_total', { cpu: '0', mode: 'io_wait' }))).to.equal(0.2);
    expect(value(one(batch, 'cpu_seconds_total', { cpu: '0', mode: 'nice' }))).to.equal(0.1);
    expect(value(one(batch, 'cpu_seconds_total', { cpu: '0', mode: 'system' }))).to.equal(0.5);
    expect(one(batch, 'cpu_seconds_total', { cpu: '0', mode: 'user' }).value.type).to.equal('counter');
    expect(value(one(batch, 'logical_cpus'))).to.equal(2);
    // two hyperthreads of one core
    expect(value(one(batch, 'physical_cpus'))).to.equal(1);
    expect(one(batch, 'logical_cpus').value.type).to.equal('gauge');
  });

  it('memory: meminfo in KiB, used = total - free - buffers - cached, swap in pages of 4 KiB', async () => {
    const batch = await scrape({ collectors: ['memory'] });
    const g = (n: string) => value(one(batch, n, { collector: 'memory' }));
    expect(g('memory_total_bytes')).to.equal(16000 * 1024);
    expect(g('memory_free_bytes')).to.equal(4000 * 1024);
    expect(g('memory_available_bytes')).to.equal(9000 * 1024);
    expect(g('memory_active_bytes')).to.equal(6000 * 1024);
    expect(g('memory_buffers_bytes')).to.equal(500 * 1024);
    expect(g('memory_cached_bytes')).to.equal(3000 * 1024);
    expect(g('memory_shared_bytes')).to.equal(200 * 1024);
    expect(g('memory_used_bytes')).to.equal((16000 - 4000 - 500 - 3000) * 1024);
    expect(g('memory_swap_total_bytes')).to.equal(2000 * 1024);
    expect(g('memory_swap_free_bytes')).to.equal(1500 * 1024);
    expect(g('memory_swap_used_bytes')).to.equal(500 * 1024);
    expect(g('memory_swapped_in_bytes_total')).to.equal(3 * 4096);
    expect(g('memory_swapped_out_bytes_total')).to.equal(5 * 4096);
    expect(one(batch, 'memory_swapped_in_bytes_total').value.type).to.equal('counter');
  });

  it('disk: bytes (512-byte sectors) and operations per device; disk.devices includes and excludes', async () => {
    let batch = await scrape({ collectors: ['disk'] });
    expect(value(one(batch, 'disk_read_bytes_total', { device: 'sda' }))).to.equal(200 * 512);
    expect(value(one(batch, 'disk_reads_completed_total', { device: 'sda' }))).to.equal(10);
    expect(value(one(batch, 'disk_written_bytes_total', { device: 'sda' }))).to.equal(400 * 512);
    expect(value(one(batch, 'disk_writes_completed_total', { device: 'sda' }))).to.equal(20);
    expect(tagValues(batch, 'disk_read_bytes_total', 'device')).to.deep.equal(['dm-0', 'sda', 'sdb']);
    batch = await scrape({ collectors: ['disk'], disk: { devices: { includes: ['sd*'], excludes: ['sd[b-z]'] } } });
    expect(tagValues(batch, 'disk_read_bytes_total', 'device')).to.deep.equal(['sda']);
    batch = await scrape({ collectors: ['disk'], disk: { devices: { excludes: ['dm-*'] } } });
    expect(tagValues(batch, 'disk_read_bytes_total', 'device')).to.deep.equal(['sda', 'sdb']);
  });

  it('network: counters per interface; network.devices includes and excludes', async () => {
    let batch = await scrape({ collectors: ['network'] });
    const eth = (n: string) => value(one(batch, n, { device: 'eth0' }));
    expect(eth('network_receive_bytes_total')).to.equal(5000);
    expect(eth('network_receive_packets_total')).to.equal(50);
    expect(eth('network_receive_errs_total')).to.equal(1);
    expect(eth('network_transmit_bytes_total')).to.equal(7000);
    expect(eth('network_transmit_packets_total')).to.equal(70);
    expect(eth('network_transmit_errs_total')).to.equal(2);
    expect(eth('network_transmit_packets_drop_total')).to.equal(3);
    batch = await scrape({ collectors: ['network'], network: { devices: { includes: ['e*'] } } });
    expect(tagValues(batch, 'network_receive_bytes_total', 'device')).to.deep.equal(['eth0']);
    batch = await scrape({ collectors: ['network'], network: { devices: { excludes: ['eth?'] } } });
    expect(tagValues(batch, 'network_receive_bytes_total', 'device')).to.deep.equal(['lo']);
  });

  it('load and host: loadavg, uptime and boot time', async () => {
    const batch = await scrape({ collectors: ['load', 'host'] });
    expect([value(one(batch, 'load1')), value(one(batch, 'load5')), value(one(batch, 'load15'))]).to.deep.equal([0.5, 0.25, 0.1]);
    expect(one(batch, 'load1').tags!.collector).to.equal('load');
    expect(value(one(batch, 'uptime', { collector: 'host' }))).to.equal(1000.5);
    expect(value(one(batch, 'boot_time', { collector: 'host' }))).to.equal(1_700_000_000);
  });

  it('tcp: connections per state and queued bytes', async () => {
    const batch = await scrape({ collectors: ['tcp'] });
    expect(value(one(batch, 'tcp_connections_total', { state: 'listen' }))).to.equal(1);
    expect(value(one(batch, 'tcp_connections_total', { state: 'established' }))).to.equal(2);
    expect(value(one(batch, 'tcp_tx_queued_bytes_total'))).to.equal(0x11);
    expect(value(one(batch, 'tcp_rx_queued_bytes_total'))).to.equal(0x22);
    expect(one(batch, 'tcp_tx_queued_bytes_total').value.type).to.equal('gauge');
  });

  it('filesystem: statfs of each mount; devices, filesystems and mountpoints filters', async () => {
    const st = statfsSync(root.mounts.ext4);
    let batch = await scrape({ collectors: ['filesystem'] });
    const ext4 = { device: '/dev/fake1', filesystem: 'ext4', mountpoint: root.mounts.ext4 };
    expect(value(one(batch, 'filesystem_total_bytes', ext4))).to.equal(st.blocks * st.bsize);
    expect(value(one(batch, 'filesystem_inodes_total', ext4))).to.equal(st.files);
    const used = value(one(batch, 'filesystem_used_bytes', ext4));
    const free = value(one(batch, 'filesystem_free_bytes', ext4));
    expect(value(one(batch, 'filesystem_used_ratio', ext4))).to.be.closeTo(used / (used + free), 1e-12);
    // the mount without a device fails the default devices include list, as in Vector
    expect(tagValues(batch, 'filesystem_total_bytes', 'filesystem')).to.deep.equal(['ext4', 'xfs']);
    batch = await scrape({ collectors: ['filesystem'], filesystem: { devices: { excludes: ['*2'] } } });
    expect(tagValues(batch, 'filesystem_total_bytes', 'filesystem')).to.deep.equal(['ext4', 'tmpfs']);
    batch = await scrape({ collectors: ['filesystem'], filesystem: { filesystems: { excludes: ['ext*'] } } });
    expect(tagValues(batch, 'filesystem_total_bytes', 'filesystem')).to.deep.equal(['xfs']);
    batch = await scrape({ collectors: ['filesystem'], filesystem: { mountpoints: { includes: ['*/raid*'] } } });
    expect(tagValues(batch, 'filesystem_total_bytes', 'mountpoint')).to.deep.equal([root.mounts.xfs]);
  });

  it('process: memory, run time and CPU share between scrapes; process.processes filters by name', async () => {
    const { batches } = await scrapes({ collectors: ['process'], scrape_interval_secs: 5 }, 2, root, () => {
      // 200 more machine ticks over 2 CPUs: 100 per CPU; sshd used 50 of them
      root.write('proc/stat', ['cpu  400 20 200 5000 40 0 0 0 0 0', 'cpu0 x', 'cpu1 x', 'btime 1700000000', ''].join('\n'));
      root.write('proc/1/stat', '1 (sshd) S 0 1 1 0 -1 4194560 0 0 0 0 130 70 0 0 20 0 1 0 5000 8192000 300 18446744073709551615\n');
    });
    const sshd = { pid: '1', name: 'sshd', command: '/usr/sbin/sshd -D' };
    expect(value(one(batches[0]!, 'process_cpu_usage', sshd))).to.equal(0);
    expect(value(one(batches[1]!, 'process_cpu_usage', sshd))).to.equal(50);
    expect(value(one(batches[1]!, 'process_cpu_usage', { name: 'weird name)' }))).to.equal(0);
    expect(value(one(batches[0]!, 'process_memory_virtual_usage', sshd))).to.equal(8_192_000);
    expect(value(one(batches[0]!, 'process_memory_usage', sshd)) % 300).to.equal(0);
    expect(value(one(batches[0]!, 'process_runtime', sshd))).to.equal(950);
    expect(one(batches[0]!, 'process_runtime', sshd).value.type).to.equal('counter');
    expect(value(one(batches[0]!, 'process_runtime', { pid: '22' }))).to.equal(100);
    const only = await scrape({ collectors: ['process'], process: { processes: { excludes: ['ssh*'] } } });
    expect(tagValues(only, 'process_runtime', 'name')).to.deep.equal(['weird name)']);
  });

  it('cgroups (v2): CPU seconds and memory per group; groups, base and levels', async () => {
    let batch = await scrape({ collectors: ['cgroups'] });
    expect(tagValues(batch, 'cgroup_memory_current_bytes', 'cgroup')).to.deep.equal(['/', 'system.slice', 'system.slice/ssh.service', 'user.slice']);
    expect(value(one(batch, 'cgroup_cpu_usage_seconds_total', { cgroup: 'system.slice' }))).to.equal(2);
    expect(value(one(batch, 'cgroup_cpu_user_seconds_total', { cgroup: 'system.slice' }))).to.equal(1);
    expect(value(one(batch, 'cgroup_cpu_system_seconds_total', { cgroup: 'system.slice' }))).to.equal(0.5);
    expect(value(one(batch, 'cgroup_memory_current_bytes', { cgroup: '/' }))).to.equal(1000);
    const g = (n: string) => value(one(batch, n, { cgroup: 'user.slice' }));
    expect([g('cgroup_memory_anon_bytes'), g('cgroup_memory_file_bytes'), g('cgroup_memory_anon_active_bytes'), g('cgroup_memory_anon_inactive_bytes'), g('cgroup_memory_file_active_bytes'), g('cgroup_memory_file_inactive_bytes')]).to.deep.equal([10, 20, 1, 2, 3, 4]);
    expect(one(batch, 'cgroup_memory_current_bytes', { cgroup: '/' }).tags!.collector).to.equal('cgroups');
    batch = await scrape({ collectors: ['cgroups'], cgroups: { groups: { excludes: ['*.service', 'user.*'] } } });
    expect(tagValues(batch, 'cgroup_memory_current_bytes', 'cgroup')).to.deep.equal(['/', 'system.slice']);
    batch = await scrape({ collectors: ['cgroups'], cgroups: { base: 'system.slice' } });
    expect(tagValues(batch, 'cgroup_memory_current_bytes', 'cgroup')).to.deep.equal(['system.slice', 'system.slice/ssh.service']);
    batch = await scrape({ collectors: ['cgroups'], cgroups: { levels: 1 } });
    expect(tagValues(batch, 'cgroup_memory_current_bytes', 'cgroup')).to.deep.equal(['/']);
    batch = await scrape({ collectors: ['cgroups'], cgroups: { levels: 2 } });
    expect(tagValues(batch, 'cgroup_memory_current_bytes', 'cgroup')).to.deep.equal(['/', 'system.slice', 'user.slice']);
  });

  it('cgroups (hybrid): the v1 directories with v2 file names, then the unified hierarchy', async () => {
    root.remove();
    root = makeFakeRoot('hybrid');
    const batch = await scrape({ collectors: ['cgroups'], cgroups: { levels: 1 } });
    // v1 memory: memory.stat only (no memory.current); v1 cpu: a cpu.stat without usage fields reads as 0
    expect(all(batch, 'cgroup_memory_anon_active_bytes', { cgroup: '/' }).map(value)).to.deep.equal([7, 1]);
    expect(all(batch, 'cgroup_cpu_usage_seconds_total', { cgroup: '/' }).map(value)).to.deep.equal([0, 4]);
    expect(all(batch, 'cgroup_memory_current_bytes').map(value)).to.deep.equal([1000]);
  });

  it('collectors and namespace: only the listed collectors; an empty namespace is none', async () => {
    const batch = await scrape({ collectors: ['load'], namespace: '' });
    expect(names(batch)).to.deep.equal(['load1', 'load5', 'load15']);
    expect(batch[0]!.namespace).to.equal(undefined);
    const custom = await scrape({ collectors: ['host'], namespace: 'node' });
    expect(custom.map((m) => m.namespace)).to.deep.equal(['node', 'node']);
  });

  it('a file that cannot be read is counted and logged; the other collectors still report', async () => {
    rmSync(`${root.proc}/diskstats`);
    rmSync(`${root.proc}/loadavg`);
    const { batches, ctx } = await scrapes({ collectors: ['disk', 'load', 'memory'] }, 2, root);
    for (const b of batches) {
      expect(names(b).filter((n) => n.startsWith('disk') || n.startsWith('load'))).to.deep.equal([]);
      expect(value(one(b, 'memory_total_bytes'))).to.equal(16000 * 1024);
    }
    expect(ctx.metric('component_errors_total', { error_type: 'reader_failed', stage: 'receiving' })).to.equal(4);
    expect(ctx.lines.some((l) => l.includes('Failed to load disk I/O info.'))).to.equal(true);
  });

  it('scrapes at once, then every scrape_interval_secs of virtual time (default 15)', async () => {
    expect((await scrapes({ collectors: ['load'] }, 3, root)).times).to.deep.equal([0, 15_000, 30_000]);
    expect((await scrapes({ collectors: ['load'], scrape_interval_secs: 2 }, 3, root)).times).to.deep.equal([0, 2000, 4000]);
  });
});
