/**
 * The `cgroups` collector: CPU and memory per control group, walking the hierarchy from `base`
 * down `levels` levels through the groups the filter lets through. cgroup v2 (`cgroup.controllers`
 * at the root), hybrid (v2 under `unified`, v1 beside it) and v1 layouts are detected as Vector
 * detects them; v1 directories are read with the v2 file names, as Vector reads them.
 */
import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { NameFilter } from './glob.js';
import { type Scrape, readText } from './scrape.js';

const MICROSECONDS = 1e-6;

/** Where the hierarchies are: a v2 directory, v1 controller directories, or both. */
export interface CgroupLayout {
  readonly modern: string | undefined;
  readonly legacy: string | undefined;
}

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/** Detects the layout under `<sys>/fs/cgroup`; undefined when there is none. */
export function detectCgroups(sys: string): CgroupLayout | undefined {
  const base = join(sys, 'fs/cgroup');
  if (isFile(join(base, 'unified/cgroup.controllers'))) return { modern: join(base, 'unified'), legacy: base };
  if (isFile(join(base, 'cgroup.controllers'))) return { modern: base, legacy: undefined };
  if (isDir(join(base, 'cpu'))) return { modern: undefined, legacy: base };
  return undefined;
}

/** The options of the walk. */
export interface CgroupWalk {
  readonly layout: CgroupLayout;
  /** The base group's name, `/` for the root. */
  readonly base: string;
  readonly levels: number;
  readonly groups: NameFilter;
}

// a group's path below a hierarchy root; `/` is the root itself
const under = (root: string, name: string) => (name === '/' ? root : join(root, name));
// child names are relative, except under the root `/`
const childName = (parent: string, child: string) => (parent === '/' ? child : `${parent}/${child}`);

/** Reads one scrape of the collector. */
export async function collectCgroups(s: Scrape, walk: CgroupWalk): Promise<void> {
  s.out.collector = 'cgroups';
  const { legacy, modern } = walk.layout;
  if (legacy !== undefined) {
    await recurse(s, walk, under(join(legacy, 'memory'), walk.base), walk.base, 1, false, true);
    await recurse(s, walk, under(join(legacy, 'cpu'), walk.base), walk.base, 1, true, false);
  }
  if (modern !== undefined) await recurse(s, walk, under(modern, walk.base), walk.base, 1, true, true);
}

async function recurse(s: Scrape, walk: CgroupWalk, path: string, name: string, level: number, cpu: boolean, memory: boolean): Promise<void> {
  const tags = { cgroup: name };
  if (cpu) await loadCpu(s, path, tags);
  if (memory) await loadMemory(s, path, tags);
  if (level >= walk.levels) return;
  let children: string[];
  try {
    children = (await readdir(path, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (err) {
    s.events.scrapeFailed('Failed to load cgroups children.', err);
    return;
  }
  for (const child of children) {
    const n = childName(name, child);
    if (walk.groups(n)) await recurse(s, walk, join(path, child), n, level + 1, cpu, memory);
  }
}

/** `key value` lines into the listed keys (0 when absent); a value that is no integer fails the file. */
function stats(text: string, file: string, keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = 0;
  for (const line of text.split('\n')) {
    const sp = line.indexOf(' ');
    const k = line.slice(0, sp);
    if (sp < 0 || !(k in out)) continue;
    const v = line.slice(sp + 1).trim();
    if (!/^\d+$/.test(v)) throw new Error(`Could not parse cgroup data file ${file}.`);
    out[k] = Number(v);
  }
  return out;
}

/** A file's text; undefined when it does not exist (a controller not enabled for the group). */
async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await readText(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function loadCpu(s: Scrape, path: string, tags: Record<string, string>): Promise<void> {
  const file = join(path, 'cpu.stat');
  try {
    const text = await readIfThere(file);
    if (text === undefined) return;
    const st = stats(text, file, ['usage_usec', 'user_usec', 'system_usec']);
    s.out.counter('cgroup_cpu_usage_seconds_total', st.usage_usec! * MICROSECONDS, tags);
    s.out.counter('cgroup_cpu_user_seconds_total', st.user_usec! * MICROSECONDS, tags);
    s.out.counter('cgroup_cpu_system_seconds_total', st.system_usec! * MICROSECONDS, tags);
  } catch (err) {
    s.events.scrapeFailed('Failed to load cgroups CPU statistics.', err);
  }
}

const MEMORY_STATS = ['anon', 'file', 'active_anon', 'inactive_anon', 'active_file', 'inactive_file'] as const;

async function loadMemory(s: Scrape, path: string, tags: Record<string, string>): Promise<void> {
  try {
    const current = await readIfThere(join(path, 'memory.current'));
    if (current !== undefined) {
      if (!/^\d+$/.test(current.trim())) throw new Error(`Could not parse cgroup data file ${join(path, 'memory.current')}.`);
      s.out.gauge('cgroup_memory_current_bytes', Number(current.trim()), tags);
    }
  } catch (err) {
    s.events.scrapeFailed('Failed to load cgroups current memory.', err);
  }
  const file = join(path, 'memory.stat');
  try {
    const text = await readIfThere(file);
    if (text === undefined) return;
    const st = stats(text, file, MEMORY_STATS);
    s.out.gauge('cgroup_memory_anon_bytes', st.anon!, tags);
    s.out.gauge('cgroup_memory_file_bytes', st.file!, tags);
    s.out.gauge('cgroup_memory_anon_active_bytes', st.active_anon!, tags);
    s.out.gauge('cgroup_memory_anon_inactive_bytes', st.inactive_anon!, tags);
    s.out.gauge('cgroup_memory_file_active_bytes', st.active_file!, tags);
    s.out.gauge('cgroup_memory_file_inactive_bytes', st.inactive_file!, tags);
  } catch (err) {
    s.events.scrapeFailed('Failed to load cgroups memory statistics.', err);
  }
}
