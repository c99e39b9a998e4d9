/**
 * Tokenizer throughput on Apache common-log lines (7 fields, int and timestamp coercions).
 *
 *   npx tsx scripts/bench/tokenizer.ts [events=300000]
 */
import { type EventBatch, EventMetadata, LogEvent } from '../../lib/event.js';
import { tokenize } from '../../operators/transforms/tokenizer/index.js';
import { eventCount, report, runBench } from './transform-harness.js';

const N = eventCount(300_000);
const BATCH = 100;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

function line(i: number): string {
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const ts = `${String(1 + (i % 28)).padStart(2, '0')}/Oct/2023:13:${String(i % 60).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')} -0700`;
  return `${ip} - user${i % 100} [${ts}] "${METHODS[i % 4]} /api/v1/items/${i} HTTP/1.1" ${200 + (i % 5)} ${1000 + (i % 9000)}`;
}

/** Batches of fresh events over pre-rendered lines (the tokenizer mutates its events). */
function source(lines: string[]) {
  let at = 0;
  let bytes = 0;
  return {
    next(): EventBatch | undefined {
      if (at >= lines.length) return undefined;
      const end = Math.min(lines.length, at + BATCH);
      const b: EventBatch = new Array(end - at);
      for (let i = at; i < end; i++) {
        const message = lines[i]!;
        bytes += message.length; // ASCII: one byte per character
        b[i - at] = new LogEvent({ message, host: 'web-01' }, new EventMetadata('in', 'demo_logs'));
      }
      at = end;
      return b;
    },
    bytes: () => bytes,
  };
}

const options = {
  fieldNames: ['client', 'ident', 'user', 'timestamp', 'request', 'status', 'bytes'],
  types: { status: 'int', bytes: 'int', timestamp: 'timestamp|%d/%b/%Y:%T %z' },
};
// decoded from bytes, as a source would hand them over (flat strings, not concatenations)
const lines = Array.from({ length: N }, (_, i) => Buffer.from(line(i)).toString('utf8'));
const warm = source(lines.slice(0, 20_000));
runBench('warm-up', warm.next, warm.bytes, tokenize(options));
const src = source(lines);
report(runBench('tokenizer (apache common log, int + timestamp types)', src.next, src.bytes, tokenize(options)));
