/** Options of the `host_metrics` source: Vector's names, defaults and filter lists. */
import * as v from 'valibot';
import { compileGlob } from './glob.js';

/** The collectors weir has, in the order a scrape runs them (Vector's order). */
export const COLLECTORS = ['cgroups', 'cpu', 'process', 'disk', 'filesystem', 'load', 'host', 'memory', 'network', 'tcp'] as const;
/** One collector. */
export type Collector = (typeof COLLECTORS)[number];
/** Vector's default list on Linux: every collector but `temperature`. */
export const DEFAULT_COLLECTORS: readonly Collector[] = ['cpu', 'disk', 'filesystem', 'load', 'host', 'memory', 'network', 'process', 'cgroups', 'tcp'];

const glob = v.pipe(
  v.string(),
  v.check((p) => typeof compileGlob(p) !== 'string', 'must be a valid glob pattern'),
);

/** An include/exclude list; the default includes everything. */
const filterList = (what: string) =>
  v.optional(
    v.pipe(
      v.strictObject({
        includes: v.optional(v.pipe(v.array(glob), v.description(`Glob patterns of the ${what} to report; unset: all.`))),
        excludes: v.optional(v.pipe(v.array(glob), v.description(`Glob patterns of the ${what} not to report.`))),
      }),
    ),
    { includes: ['*'] },
  );

/** The `host_metrics` source options. */
export const HostMetricsConfig = v.strictObject({
  type: v.literal('host_metrics'),
  scrape_interval_secs: v.optional(v.pipe(v.number(), v.gtValue(0, 'must be greater than 0'), v.description('Seconds between scrapes; the first runs at start.')), 15),
  collectors: v.optional(
    v.pipe(
      v.array(
        v.union(
          [v.picklist(COLLECTORS), v.literal('temperature')],
          `must be one of ${COLLECTORS.join(', ')}`,
        ),
      ),
      v.check((list) => !list.includes('temperature'), 'the temperature collector is not supported by weir yet'),
      v.description('Collectors to run; default: all but temperature.'),
    ),
    [...DEFAULT_COLLECTORS],
  ),
  namespace: v.optional(v.pipe(v.string(), v.description('Namespace of the emitted metrics; an empty string: none.')), 'host'),
  cgroups: v.optional(
    v.strictObject({
      levels: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Levels of the cgroup hierarchy to report; 1: the base group only.')), 100),
      base: v.optional(v.pipe(v.string(), v.description('The cgroup to start from (`system.slice/snapd.service`); default: the root.'))),
      groups: filterList('cgroup names (relative to the base)'),
    }),
    {},
  ),
  disk: v.optional(v.strictObject({ devices: filterList('block devices (`sda`)') }), {}),
  filesystem: v.optional(
    v.strictObject({
      devices: filterList('mounted devices (`/dev/sda1`)'),
      filesystems: filterList('filesystem types (`ext4`)'),
      mountpoints: filterList('mount points (`/home`)'),
    }),
    {},
  ),
  network: v.optional(v.strictObject({ devices: filterList('network interfaces (`eth0`)') }), {}),
  process: v.optional(v.strictObject({ processes: filterList('process names') }), {}),
});
/** Validated `host_metrics` options. */
export type HostMetricsConfig = v.InferOutput<typeof HostMetricsConfig>;
