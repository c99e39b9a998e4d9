/** `host_metrics`: the host's CPU, memory, disk, filesystem, load, network, process, cgroup and TCP metrics. */
import { defineSource } from '../../../lib/component.js';
import { HostMetricsConfig } from './config.js';
import { buildHostMetricsSource } from './source.js';

export { HostMetricsConfig } from './config.js';
export { buildHostMetricsSource } from './source.js';

/** The `host_metrics` source definition. */
export const hostMetricsSource = defineSource({
  type: 'host_metrics',
  summary: 'Collect metrics of the host: CPU, memory, disks, filesystems, load, network, processes, cgroups and TCP.',
  schema: HostMetricsConfig,
  outputs: () => [{ type: 'metric' }],
  build: (config, ctx) => buildHostMetricsSource(config, ctx),
});
