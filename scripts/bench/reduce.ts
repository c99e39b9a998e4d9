/**
 * Reduce throughput with 1,000 open groups (group_by one field, default merges plus concat).
 *
 *   npx tsx scripts/bench/reduce.ts [events=500000]
 */
import { EventMetadata, LogEvent } from '../../lib/event.js';
import { Timestamp } from '../../lib/value.js';
import { reduce } from '../../operators/transforms/reduce/index.js';
import { batchedSource, eventCount, report, runBench } from './transform-harness.js';

const N = eventCount(500_000);
const GROUPS = 1000;
const BATCH = 100;

const source = (n: number) =>
  batchedSource(n, BATCH, (i) => {
    const message = `request ${i} served`;
    return {
      bytes: message.length + 48,
      event: new LogEvent(
        {
          message,
          request_id: `req-${i % GROUPS}`,
          duration_ms: i % 97,
          timestamp: new Timestamp(1_714_557_600_000 + i, 0),
          http: { status: 200, path: '/api' },
        },
        new EventMetadata('in', 'demo_logs'),
      ),
    };
  });

const options = () => ({ groupBy: ['request_id'], mergeStrategies: { message: 'concat' as const } });
const warm = source(20_000);
runBench('warm-up', warm.next, warm.bytes, reduce(options()));
const src = source(N);
// no end condition and a long expiry: every group stays open until the input completes
report(runBench(`reduce (${GROUPS} open groups, flushed at completion)`, src.next, src.bytes, reduce(options())));
