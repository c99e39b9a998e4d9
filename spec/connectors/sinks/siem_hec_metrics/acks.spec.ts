import { expect } from 'chai';
import { type AckAnswer, AckPoller, AckSlots, ackIdOf, readAckAnswer } from '../../../../connectors/sinks/siem_hec_metrics/acks.js';
import type { DeliveryStatus } from '../../../../lib/event.js';
import { Clock } from '../../shared/hec/harness.js';

type Reply = { status: number; body: string } | Error | 'hang';

/** A poller on virtual time whose collector answers per `reply`; records every query. */
function harness(reply: (ids: number[], n: number) => Reply, opts: { retryLimit?: number; timeoutMs?: number } = {}) {
  const clock = new Clock();
  const queries: { at: number; ids: number[]; aborted: () => boolean }[] = [];
  const failures: AckAnswer['kind'][] = [];
  const poller = new AckPoller(
    { queryIntervalMs: 10_000, retryLimit: opts.retryLimit ?? 3, timeoutMs: opts.timeoutMs ?? 60_000 },
    (ids, signal) => {
      const r = reply(ids, queries.length);
      queries.push({ at: clock.now, ids, aborted: () => signal.aborted });
      if (r === 'hang') return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
      return r instanceof Error ? Promise.reject(r) : Promise.resolve(r);
    },
    clock.scheduler,
    { queryFailed: (a) => failures.push(a.kind) },
  );
  const settled = new Map<number, DeliveryStatus>();
  const wait = (id: number) => void poller.wait(id).then((s) => settled.set(id, s));
  return { clock, queries, failures, poller, settled, wait };
}

const acks = (map: Record<number, boolean>) => ({ status: 200, body: JSON.stringify({ acks: Object.fromEntries(Object.entries(map).map(([k, v]) => [k, v])) }) });
const all = (ids: number[], done: boolean) => acks(Object.fromEntries(ids.map((i) => [i, done])));

describe('connectors/sinks/siem_hec_metrics: indexer acknowledgements', () => {
  it('asks every query_interval while ids are pending; an id acked late is delivered then', async () => {
    const h = harness((ids, n) => all(ids, n >= 2));
    h.wait(7);
    h.wait(8);
    await h.clock.advanceTo(9_999);
    expect(h.queries).to.have.length(0);
    await h.clock.advanceTo(30_000);
    expect(h.queries.map((q) => [q.at, q.ids])).to.deep.equal([
      [10_000, [7, 8]],
      [20_000, [7, 8]],
      [30_000, [7, 8]],
    ]);
    expect([...h.settled]).to.deep.equal([
      [7, 'delivered'],
      [8, 'delivered'],
    ]);
    // nothing pending: no more queries
    await h.clock.advanceTo(100_000);
    expect(h.queries).to.have.length(3);
  });

  it('an id never acked is given up as errored after exactly retry_limit queries', async () => {
    const h = harness((ids) => all(ids, false), { retryLimit: 3 });
    h.wait(1);
    await h.clock.advanceTo(29_999);
    expect(h.settled.size).to.equal(0);
    await h.clock.advanceTo(30_000);
    expect(h.settled.get(1)).to.equal('errored');
    await h.clock.advanceTo(200_000);
    expect(h.queries.map((q) => q.at)).to.deep.equal([10_000, 20_000, 30_000]);
  });

  it('a lost id fails alone; ids that join later get their own retry_limit queries', async () => {
    const h = harness((ids) => acks(Object.fromEntries(ids.map((i) => [i, i !== 2]))), { retryLimit: 2 });
    h.wait(2);
    await h.clock.advanceTo(10_000);
    h.wait(3);
    await h.clock.advanceTo(20_000);
    expect([...h.settled]).to.deep.equal([
      [3, 'delivered'],
      [2, 'errored'],
    ]);
    expect(h.queries.map((q) => q.ids)).to.deep.equal([[2], [2, 3]]);
  });

  it('a query answered 5xx or not at all keeps the ids; they fail only at the limit, and a later ack still delivers', async () => {
    const h = harness((ids, n) => (n === 0 ? { status: 503, body: '' } : n === 1 ? new Error('ECONNRESET') : all(ids, true)), { retryLimit: 3 });
    h.wait(4);
    await h.clock.advanceTo(20_000);
    expect(h.settled.size).to.equal(0);
    expect(h.failures).to.deep.equal(['failed', 'failed']);
    await h.clock.advanceTo(30_000);
    expect(h.settled.get(4)).to.equal('delivered');
  });

  it('when the queries fail up to the limit the ids end errored', async () => {
    const h = harness(() => ({ status: 500, body: 'boom' }), { retryLimit: 2 });
    h.wait(1);
    await h.clock.advanceTo(20_000);
    expect(h.settled.get(1)).to.equal('errored');
  });

  it('a query with no answer within request.timeout_secs is aborted on the scheduler and counts as failed', async () => {
    const h = harness((ids, n) => (n === 0 ? 'hang' : all(ids, true)), { timeoutMs: 3_000 });
    h.wait(1);
    await h.clock.advanceTo(12_999);
    expect(h.queries[0]!.aborted()).to.equal(false);
    await h.clock.advanceTo(13_000);
    expect(h.queries[0]!.aborted()).to.equal(true);
    expect(h.failures).to.deep.equal(['failed']);
    await h.clock.advanceTo(20_000);
    expect(h.settled.get(1)).to.equal('delivered');
  });

  it('never two queries at once: an interval that finds one in flight is skipped and costs no try', async () => {
    const h = harness((ids, n) => (n === 0 ? 'hang' : all(ids, true)), { retryLimit: 2, timeoutMs: 25_000 });
    h.wait(1);
    await h.clock.advanceTo(30_000);
    // one query hung from 10 s to its abort at 35 s; the intervals at 20 s and 30 s found it in flight
    expect(h.queries.map((q) => q.at)).to.deep.equal([10_000]);
    await h.clock.advanceTo(40_000);
    expect(h.queries.map((q) => q.at)).to.deep.equal([10_000, 40_000]);
    expect(h.settled.get(1)).to.equal('delivered');
  });

  it('a 4xx answer, or a 2xx that is no answer, means the collector cannot acknowledge: every pending id is delivered', async () => {
    for (const reply of [{ status: 400, body: '{"text":"ACK is disabled","code":14}' }, { status: 200, body: 'not json' }, { status: 200, body: '{"text":"Success"}' }]) {
      const h = harness(() => reply);
      h.wait(1);
      h.wait(2);
      await h.clock.advanceTo(10_000);
      expect([...h.settled.values()], JSON.stringify(reply)).to.deep.equal(['delivered', 'delivered']);
      expect(h.failures).to.deep.equal(['unusable']);
    }
  });

  it('the same id handed out twice (a restarted collector) settles both waiters', async () => {
    const h = harness((ids) => all(ids, true));
    const got: DeliveryStatus[] = [];
    void h.poller.wait(5).then((s) => got.push(s));
    void h.poller.wait(5).then((s) => got.push(s));
    await h.clock.advanceTo(10_000);
    expect(got).to.deep.equal(['delivered', 'delivered']);
    expect(h.queries[0]!.ids).to.deep.equal([5]);
  });

  it('close stops the queries', async () => {
    const h = harness((ids) => all(ids, false));
    h.wait(1);
    h.poller.close();
    await h.clock.advanceTo(100_000);
    expect(h.queries).to.have.length(0);
  });

  it('reads ack ids and query answers as the collector writes them', () => {
    expect(ackIdOf('{"text":"Success","code":0,"ackId":7}')).to.equal(7);
    expect(ackIdOf('{"text":"Success","code":0,"ack_id":0}')).to.equal(0);
    expect(ackIdOf('{"text":"Success","code":0}')).to.equal(undefined);
    expect(ackIdOf('{"ackId":"7"}')).to.equal(undefined);
    expect(ackIdOf('<html>')).to.equal('invalid');
    expect(readAckAnswer({ status: 200, body: '{"acks":{"7":true,"8":false,"9":true}}' })).to.deep.equal({ kind: 'acks', acked: new Set([7, 9]) });
    expect(readAckAnswer({ status: 429, body: '' }).kind).to.equal('failed');
    expect(readAckAnswer({ status: 403, body: '' }).kind).to.equal('unusable');
  });
});

describe('connectors/sinks/siem_hec_metrics: max_pending_acks slots', () => {
  it('hands out at most max slots; the next holder waits for a release, in arrival order', async () => {
    const slots = new AckSlots(2);
    const a = {};
    const b = {};
    const c = {};
    const d = {};
    const got: string[] = [];
    await slots.acquire(a);
    await slots.acquire(b);
    void slots.acquire(c).then(() => got.push('c'));
    void slots.acquire(d).then(() => got.push('d'));
    await new Promise((r) => setImmediate(r));
    expect(got).to.deep.equal([]);
    expect(slots.inUse).to.equal(2);
    slots.release({}); // not a holder: nothing happens
    await new Promise((r) => setImmediate(r));
    expect(got).to.deep.equal([]);
    slots.release(a);
    await new Promise((r) => setImmediate(r));
    expect(got).to.deep.equal(['c']);
    slots.release(a); // released twice: the second is ignored
    await new Promise((r) => setImmediate(r));
    expect(got).to.deep.equal(['c']);
    slots.release(b);
    slots.release(c);
    slots.release(d);
    await new Promise((r) => setImmediate(r));
    expect(got).to.deep.equal(['c', 'd']);
    expect(slots.inUse).to.equal(0);
  });
});
