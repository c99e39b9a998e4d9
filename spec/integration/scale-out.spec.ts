/**
 * Three weir processes as one consumer, in turn on one JetStream durable consumer, one Pub/Sub
 * subscription and one SQS queue: 30,000 messages, each delivered by exactly one process while all
 * run; with one process killed (SIGKILL) a third of the way in, every message is still delivered
 * (at least once: the killed process's unacknowledged messages come back after the deadline, and
 * the duplicates are counted and printed). Throughput with three processes and with one (on 10,000
 * messages) is printed, not asserted: on a small machine the processes share its cores.
 */
import { expect } from 'chai';
import { type Broker, natsBroker, pubsubBroker, sqsBroker } from './scale-out/brokers.js';
import { type GroupResult, bodies, runGroup } from './scale-out/group.js';

const N = 30_000;
/** Messages of the one-process run, which only gives the rate to compare with (a third keeps the suite short). */
const BASELINE_N = 10_000;
/** Deadline while every process runs: long enough that nothing is redelivered under load. */
const STEADY_DEADLINE_SECS = 120;
/** Deadline of the kill run: what the killed process held comes back this soon. */
const KILL_DEADLINE_SECS = 10;

const describeRate = (r: GroupResult) => `${Math.round(r.rate)} msg/s, lines per process ${r.perProcess.join('/')}`;

for (const make of [natsBroker, pubsubBroker, sqsBroker]) {
  const broker: Broker = make();
  describe(`scale-out: three weir processes on ${broker.name}`, function () {
    this.timeout(180_000);
    const rates: { one?: number; three?: number } = {};
    before(() => broker.start());
    after(() => {
      if (rates.one && rates.three) console.log(`      ${broker.name}: 3 consumers ${Math.round(rates.three)} msg/s vs 1 consumer ${Math.round(rates.one)} msg/s (x${(rates.three / rates.one).toFixed(2)})`);
      return broker.close();
    });

    it('one process: 10,000 messages, each once (the rate to compare with)', async () => {
      const c = await broker.consumer(STEADY_DEADLINE_SECS);
      await c.publish(bodies(BASELINE_N));
      const r = await runGroup({ sourceToml: c.sourceToml, processes: 1, expected: BASELINE_N, timeoutMs: 120_000 });
      console.log(`      1 process: ${describeRate(r)}`);
      rates.one = r.rate;
      expect(r.unique).to.equal(BASELINE_N);
      expect(r.duplicates).to.equal(0);
    });

    it('three processes: 30,000 messages, each by exactly one process, all three taking part', async () => {
      const c = await broker.consumer(STEADY_DEADLINE_SECS);
      await c.publish(bodies(N));
      const r = await runGroup({ sourceToml: c.sourceToml, processes: 3, expected: N, timeoutMs: 120_000 });
      console.log(`      3 processes: ${describeRate(r)}`);
      rates.three = r.rate;
      expect(r.unique).to.equal(N);
      expect(r.duplicates, 'duplicates').to.equal(0);
      expect(r.acrossProcesses).to.equal(0);
      for (const n of r.perProcess) expect(n).to.be.greaterThan(0);
    });

    it('kill -9 of one process a third of the way in: still every message delivered (duplicates reported)', async () => {
      const c = await broker.consumer(KILL_DEADLINE_SECS);
      await c.publish(bodies(N));
      let killedAt = 0;
      const r = await runGroup({
        sourceToml: c.sourceToml,
        processes: 3,
        expected: N,
        timeoutMs: 150_000,
        onProgress: (unique, kill) => {
          if (killedAt === 0 && unique >= N / 3) {
            killedAt = unique;
            kill(0);
          }
        },
      });
      console.log(`      killed at ${killedAt} delivered: ${r.unique} unique, ${r.duplicates} duplicates; ${describeRate(r)}`);
      expect(killedAt).to.be.greaterThan(0);
      expect(r.unique).to.equal(N);
    });
  });
}
