/**
 * `host_metrics` on this machine: values agree with /proc read beside them and with a real
 * Prometheus node exporter where both report the same quantity. Counters are checked by
 * bracketing: the exporter's value, read between two scrapes of the source, lies between them.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { HostMetricsConfig } from '../../../../connectors/sources/host_metrics/index.js';
import { type Sample, sharedNodeExporter } from '../../../peers/node-exporter.js';
import { all, one, scrapes, value } from './helpers.js';

const exported = (samples: Sample[], name: string, labels: Record<string, string> = {}): number => {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, l]) => s.labels[k] === l));
  if (found.length !== 1) throw new Error(`${found.length} samples ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
};

describe('connectors/sources/host_metrics on this machine', () => {
  it("Vector's defaults; temperature, unknown collectors and bad globs are refused with the option path", () => {
    const c = v.parse(HostMetricsConfig, { type: 'host_metrics' });
    expect(c.scrape_interval_secs).to.equal(15);
    expect(c.namespace).to.equal('host');
    expect(c.collectors).to.deep.equal(['cpu', 'disk', 'filesystem', 'load', 'host', 'memory', 'network', 'process', 'cgroups', 'tcp']);
    expect(c.cgroups.levels).to.equal(100);
    expect(c.disk.devices).to.deep.equal({ includes: ['*'] });
    const issue = (o: Record<string, unknown>) => {
      const r = v.safeParse(HostMetricsConfig, { type: 'host_metrics', ...o });
      return r.success ? '' : `${v.getDotPath(r.issues[0]) ?? ''}: ${r.issues[0].message}`;
    };
    expect(issue({ collectors: ['temperature'] })).to.equal('collectors: the temperature collector is not supported by weir yet');
    expect(issue({ collectors: ['gpu'] })).to.match(/^collectors\.0: must be one of cgroups, cpu/);
    expect(issue({ network: { devices: { includes: ['[eth'] } } })).to.equal('network.devices.includes.0: must be a valid glob pattern');
    expect(issue({ scrape_interval_secs: 0 })).to.match(/^scrape_interval_secs: /);
    expect(issue({ process: { include: ['x'] } })).to.match(/^process\.include/);
  });

  it('memory_total_bytes is MemTotal exactly; load within 0.5 of /proc/loadavg', async () => {
    const { batches } = await scrapes({ collectors: ['memory', 'load'] }, 1);
    const memTotal = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
    expect(value(one(batches[0]!, 'memory_total_bytes'))).to.equal(memTotal);
    const [l1, l5, l15] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
    expect(value(one(batches[0]!, 'load1'))).to.be.closeTo(l1!, 0.5);
    expect(value(one(batches[0]!, 'load5'))).to.be.closeTo(l5!, 0.5);
    expect(value(one(batches[0]!, 'load15'))).to.be.closeTo(l15!, 0.5);
  });

  it('CPU seconds never go down between two scrapes, and some go up', async () => {
    // work between the scrapes (no sleep): 30 ms of this process's user time, which the kernel's ticks must show
    const burn = () => {
      const start = process.cpuUsage();
      while (process.cpuUsage(start).user < 30_000);
    };
    const { batches, times } = await scrapes({ collectors: ['cpu'], scrape_interval_secs: 1 }, 2, undefined, burn);
    expect(times).to.deep.equal([0, 1000]);
    const before = all(batches[0]!, 'cpu_seconds_total');
    expect(before.length).to.be.greaterThan(0);
    let grew = 0;
    for (const m of before) {
      const after = value(one(batches[1]!, 'cpu_seconds_total', { cpu: m.tags!.cpu as string, mode: m.tags!.mode as string }));
      expect(after).to.be.at.least(value(m));
      if (after > value(m)) grew++;
    }
    expect(grew).to.be.greaterThan(0);
  });

  it('network.devices against the real interfaces: includes ["lo"] keeps lo only, excludes ["lo"] drops it', async () => {
    const only = (await scrapes({ collectors: ['network'], network: { devices: { includes: ['lo'] } } }, 1)).batches[0]!;
    expect([...new Set(only.map((m) => m.tags!.device))]).to.deep.equal(['lo']);
    const without = (await scrapes({ collectors: ['network'], network: { devices: { excludes: ['lo'] } } }, 1)).batches[0]!;
    expect(without.some((m) => m.tags!.device === 'lo')).to.equal(false);
    expect(without.length).to.be.greaterThan(0);
  });

  describe('against node-exporter', () => {
    it('memory total and the root filesystem size are equal', async () => {
      const exporter = await sharedNodeExporter();
      const { batches } = await scrapes({ collectors: ['memory', 'filesystem'], filesystem: { mountpoints: { includes: ['/'] } } }, 1);
      const samples = await exporter.scrape();
      expect(value(one(batches[0]!, 'memory_total_bytes'))).to.equal(exported(samples, 'node_memory_MemTotal_bytes'));
      const root = one(batches[0]!, 'filesystem_total_bytes', { mountpoint: '/' });
      expect(value(root)).to.equal(exported(samples, 'node_filesystem_size_bytes', { mountpoint: '/' }));
      const labels = samples.find((s) => s.name === 'node_filesystem_size_bytes' && s.labels.mountpoint === '/')!.labels;
      expect([root.tags!.filesystem, root.tags!.device]).to.deep.equal([labels.fstype, labels.device]);
    });

    it('network bytes, CPU seconds and disk reads read by the exporter lie between two scrapes of the source', async () => {
      const exporter = await sharedNodeExporter();
      const [first] = (await scrapes({ collectors: ['network', 'cpu', 'disk'] }, 1)).batches;
      const samples = await exporter.scrape();
      const [second] = (await scrapes({ collectors: ['network', 'cpu', 'disk'] }, 1)).batches;
      const between = (name: string, tags: Record<string, string>, exp: number) => {
        const a = value(one(first!, name, tags));
        const b = value(one(second!, name, tags));
        expect(exp, `${name} ${JSON.stringify(tags)}`).to.be.within(a, b);
      };
      // Debian's exporter leaves out lo: the busiest interface it reports
      const nic = samples.filter((s) => s.name === 'node_network_receive_bytes_total').sort((a, b) => b.value - a.value)[0]?.labels.device;
      expect(nic, 'node-exporter reports an interface').to.be.a('string');
      for (const dir of ['receive', 'transmit']) between(`network_${dir}_bytes_total`, { device: nic! }, exported(samples, `node_network_${dir}_bytes_total`, { device: nic! }));
      between('network_receive_packets_total', { device: nic! }, exported(samples, 'node_network_receive_packets_total', { device: nic! }));
      for (const mode of ['user', 'system', 'idle']) {
        between('cpu_seconds_total', { cpu: '0', mode }, exported(samples, 'node_cpu_seconds_total', { cpu: '0', mode }));
      }
      const disk = samples.find((s) => s.name === 'node_disk_reads_completed_total')?.labels.device;
      expect(disk, 'node-exporter reports a disk').to.be.a('string');
      between('disk_reads_completed_total', { device: disk! }, exported(samples, 'node_disk_reads_completed_total', { device: disk! }));
      between('disk_read_bytes_total', { device: disk! }, exported(samples, 'node_disk_read_bytes_total', { device: disk! }));
    });
  });
});
