import { expect } from 'chai';
import { runThreaded } from '../../helpers/threaded-run.js';
import { type KafkaBroker, sharedKafkaBroker } from '../../peers/kafka-broker.js';
import { kcat } from '../../peers/kcat.js';

/** The sink's counters compared across thread counts. */
const SINK_COUNTERS = ['component_received_events_total', 'component_sent_events_total', 'component_sent_event_bytes_total', 'component_errors_total', 'component_discarded_events_total'];

/** Every 9th line names no app: its topic does not render and the sink refuses it alone. */
const LINES = Array.from({ length: 3_000 }, (_, i) => (i % 9 === 4 ? `n=${i}` : `app=a${i % 2} user=u${i % 5} n=${i} say="h\u00e9llo ${i}"`));
const REFUSED = LINES.filter((l) => !l.startsWith('app')).length;

describe('kafka sink in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);
  let broker: KafkaBroker;
  before(async () => (broker = await sharedKafkaBroker()));

  it('socket -> remap -> kafka writes the records --threads 1 writes: topics, keys, headers and timestamps read in the worker', async () => {
    const runs: { records: Record<string, string[]>; totals: Record<string, number>; recycled: number }[] = [];
    for (const threads of [1, 2]) {
      const base = `threads-${process.pid}-${threads}`;
      const topology = await runThreaded(
        threads,
        (address) => ({
          sources: { in: { type: 'socket', mode: 'tcp', address } },
          transforms: {
            kv: {
              type: 'remap',
              inputs: ['in'],
              source: '. = merge(., parse_key_value!(.message))\n.meta = { "n": .n, "say": .say, "skip": [1] }\n.timestamp = parse_timestamp!("2024-05-01T10:00:00.123Z", "%+")\ndel(.host)\ndel(.port)',
            },
          },
          sinks: {
            out: {
              type: 'kafka',
              inputs: ['kv'],
              bootstrap_servers: broker.address,
              topic: `${base}-{{ app }}`,
              key_field: 'user',
              headers_key: 'meta',
              encoding: { codec: 'json' },
              healthcheck: { enabled: false },
            },
          },
        }),
        LINES,
        // every event sent or refused
        (sum) => sum('component_sent_events_total', 'out') + sum('component_discarded_events_total', 'out') >= LINES.length,
      );
      const out = (name: string) => topology.registry.sum(name, { component_id: 'out' });
      const totals: Record<string, number> = {};
      for (const c of SINK_COUNTERS) totals[c] = out(c);
      const records: Record<string, string[]> = {};
      for (const app of ['a0', 'a1']) {
        const { stdout } = await kcat(['-b', broker.address, '-C', '-t', `${base}-${app}`, '-e', '-f', '%k|%T|%h|%s\n']);
        records[app] = stdout.trim().split('\n').sort();
      }
      runs.push({ records, totals, recycled: topology.workerPool?.recycled ?? 0 });
    }
    const [one, two] = runs;
    expect(one!.records.a1).to.have.length(LINES.filter((l) => l.startsWith('app=a1')).length);
    expect(one!.records.a1).to.include(
      'u1|1714557600123|n=1,say=h\u00e9llo 1|{"message":"app=a1 user=u1 n=1 say=\\"h\u00e9llo 1\\"","timestamp":"2024-05-01T10:00:00.123Z","source_type":"socket","app":"a1","user":"u1","n":"1","say":"h\u00e9llo 1","meta":{"n":"1","say":"h\u00e9llo 1","skip":[1]}}',
    );
    expect(one!.totals.component_discarded_events_total).to.equal(REFUSED);
    expect(two!.records).to.deep.equal(one!.records);
    expect(two!.totals).to.deep.equal(one!.totals);
    // the values' memory went back to the workers once their requests were over
    expect(two!.recycled).to.be.greaterThan(0);
  });
});
