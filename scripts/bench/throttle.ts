/**
 * Throttle throughput with 10,000 keys (key_field template, threshold 5 per second).
 *
 *   npx tsx scripts/bench/throttle.ts [events=1000000]
 */
import { EventMetadata, LogEvent } from '../../lib/event.js';
import { throttle } from '../../operators/transforms/throttle/index.js';
import { batchedSource, eventCount, report, runBench } from './transform-harness.js';

const N = eventCount(1_000_000);
const KEYS = 10_000;
const BATCH = 100;

const source = (n: number) =>
  batchedSource(n, BATCH, (i) => {
    const message = `login attempt ${i}`;
    const user = `user-${(i * 7919) % KEYS}`;
    return { bytes: message.length + user.length, event: new LogEvent({ message, user }, new EventMetadata('in', 'demo_logs')) };
  });

const options = () => ({ threshold: 5, windowSecs: 1, keyField: '{{ user }}' });
const warm = source(50_000);
runBench('warm-up', warm.next, warm.bytes, throttle(options()));
const src = source(N);
report(runBench(`throttle (${KEYS} keys, threshold 5/s)`, src.next, src.bytes, throttle(options())));
