/**
 * The statistics document of an EventStoreDB-compatible `/stats` endpoint and the nine metrics
 * taken from it (as Vector reads them). Keys are camelCase; unknown keys are ignored; every listed key is
 * required, `sys.drive` alone is optional.
 */
import * as v from 'valibot';
import { EventMetadata, MetricEvent } from '../../../lib/event.js';
import type { Timestamp } from '../../../lib/value.js';

const num = v.pipe(v.number(), v.finite());

const Drive = v.object({
  availableBytes: num,
  totalBytes: num,
  // an integer percentage or a string such as "30%"
  usage: v.union([num, v.string()]),
  usedBytes: num,
});

const Stats = v.object({
  proc: v.object({
    id: v.pipe(v.number(), v.integer()),
    mem: num,
    cpu: num,
    threadsCount: num,
    thrownExceptionsRate: num,
    diskIo: v.object({ readBytes: num, writtenBytes: num, readOps: num, writeOps: num }),
  }),
  sys: v.object({
    freeMem: num,
    loadavg: v.object({ '1m': num, '5m': num, '15m': num }),
    drive: v.optional(v.record(v.string(), Drive)),
  }),
});

/** Metric events of one scrape, in the reference's order; a string says why the document does not fit. */
export function statsToMetrics(text: string, namespace: string, now: Timestamp, sourceId: string): MetricEvent[] | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return `invalid JSON: ${(err as Error).message}`;
  }
  const parsed = v.safeParse(Stats, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = v.getDotPath(issue) ?? '';
    return `${path === '' ? 'document' : path}: ${issue.message}`;
  }
  const { proc, sys } = parsed.output;
  const id = String(proc.id);
  const out: MetricEvent[] = [];
  const push = (name: string, kind: 'counter' | 'gauge', value: number, tags: Record<string, string>) =>
    out.push(new MetricEvent(name, 'absolute', { type: kind, value }, new EventMetadata(sourceId, 'eventdb_metrics'), namespace, tags, now));
  push('process_memory_used_bytes', 'gauge', proc.mem, { id });
  push('disk_read_bytes_total', 'counter', proc.diskIo.readBytes, { id });
  push('disk_written_bytes_total', 'counter', proc.diskIo.writtenBytes, { id });
  push('disk_read_ops_total', 'counter', proc.diskIo.readOps, { id });
  push('disk_write_ops_total', 'counter', proc.diskIo.writeOps, { id });
  push('memory_free_bytes', 'gauge', sys.freeMem, { id });
  if (sys.drive) {
    // only the first drive is reported, keyed by its path
    for (const path in sys.drive) {
      const d = sys.drive[path]!;
      push('disk_total_bytes', 'gauge', d.totalBytes, { id, path });
      push('disk_free_bytes', 'gauge', d.availableBytes, { id, path });
      push('disk_used_bytes', 'gauge', d.usedBytes, { id, path });
      break;
    }
  }
  return out;
}
