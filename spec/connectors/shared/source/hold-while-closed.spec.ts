import { expect } from 'chai';
import { VirtualTimeScheduler } from 'rxjs';
import { REQUEST_HOLD_TIMEOUT_MS, holdWhileClosed } from '../../../../connectors/shared/source/hold-while-closed.js';
import { GateController } from '../../../../lib/gate.js';

/** What a held request learnt so far: undefined while it waits. */
interface Tracked {
  result: boolean | undefined;
}
const track = (p: true | Promise<boolean>, order?: string[], name?: string): Tracked => {
  const t: Tracked = { result: undefined };
  if (p === true) t.result = true;
  else
    void p.then((r) => {
      t.result = r;
      if (r && order !== undefined && name !== undefined) order.push(name);
    });
  return t;
};
/** Lets promise continuations run (no time passes on the virtual clock). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('holdWhileClosed', () => {
  let vts: VirtualTimeScheduler;
  let gate: GateController;
  /** Runs every scheduled action due at or before `ms` on the virtual clock. */
  const runTo = async (ms: number) => {
    vts.maxFrames = ms;
    vts.flush();
    await settle();
  };
  const liveTimers = () => vts.actions.filter((a) => !a.closed).length;
  beforeEach(() => {
    vts = new VirtualTimeScheduler();
    gate = new GateController(true);
  });

  it('admits at once, synchronously, while the gate is open and nothing is held', () => {
    const hold = holdWhileClosed(gate, vts);
    expect(hold.wait(1000)).to.equal(true);
    expect(hold.held).to.equal(0);
    expect(liveTimers()).to.equal(0);
  });

  it('holds a request while the gate is closed and admits it when the gate opens, before the timeout', async () => {
    const hold = holdWhileClosed(gate, vts);
    gate.close();
    const t = track(hold.wait(1000));
    await runTo(999);
    expect(t.result).to.equal(undefined);
    expect(hold.held).to.equal(1);
    gate.open();
    await settle();
    expect(t.result).to.equal(true);
    expect(hold.held).to.equal(0);
    // the timeout was cancelled: running the clock past it changes nothing
    expect(liveTimers()).to.equal(0);
    await runTo(5000);
    expect(t.result).to.equal(true);
  });

  it('refuses (false) once the timeout passes with the gate still closed; opening later admits nobody', async () => {
    const hold = holdWhileClosed(gate, vts);
    gate.close();
    const t = track(hold.wait(1000));
    await runTo(999);
    expect(t.result).to.equal(undefined);
    await runTo(1000);
    expect(t.result).to.equal(false);
    expect(hold.held).to.equal(0);
    gate.open();
    await settle();
    expect(t.result).to.equal(false);
    expect(liveTimers()).to.equal(0);
  });

  it('waits REQUEST_HOLD_TIMEOUT_MS by default', async () => {
    const hold = holdWhileClosed(gate, vts);
    gate.close();
    const t = track(hold.wait());
    await runTo(REQUEST_HOLD_TIMEOUT_MS - 1);
    expect(t.result).to.equal(undefined);
    await runTo(REQUEST_HOLD_TIMEOUT_MS);
    expect(t.result).to.equal(false);
  });

  it('admits held requests one per scheduler turn in arrival order; one that closes the gate again keeps the rest held', async () => {
    const hold = holdWhileClosed(gate, vts);
    gate.close();
    const order: string[] = [];
    const a = hold.wait(10_000);
    // the admitted request emits and fills the buffer: the gate closes again
    void (a as Promise<boolean>).then(() => gate.close());
    const ta = track(a, order, 'a');
    const tb = track(hold.wait(10_000), order, 'b');
    const tc = track(hold.wait(10_000), order, 'c');
    gate.open();
    await settle();
    expect([ta.result, tb.result, tc.result]).to.deep.equal([true, undefined, undefined]);
    expect(gate.isOpen).to.equal(false);
    await runTo(0);
    expect(tb.result).to.equal(undefined);
    expect(hold.held).to.equal(2);
    gate.open();
    await settle();
    expect([tb.result, tc.result]).to.deep.equal([true, undefined]);
    await runTo(0);
    expect(tc.result).to.equal(true);
    expect(order).to.deep.equal(['a', 'b', 'c']);
    expect(liveTimers()).to.equal(0);
  });

  it('a request that arrives while others are held waits behind them, even with the gate open', async () => {
    const hold = holdWhileClosed(gate, vts);
    gate.close();
    const order: string[] = [];
    track(hold.wait(10_000), order, 'a');
    track(hold.wait(10_000), order, 'b');
    gate.open();
    const late = hold.wait(10_000);
    expect(late).to.be.instanceOf(Promise);
    track(late, order, 'late');
    await settle();
    expect(order).to.deep.equal(['a']);
    await runTo(0);
    await runTo(0);
    expect(order).to.deep.equal(['a', 'b', 'late']);
    expect(hold.wait(10_000)).to.equal(true);
  });

  it('a held request whose signal aborts (the client went away) leaves the queue with false', async () => {
    const hold = holdWhileClosed(gate, vts);
    gate.close();
    const abort = new AbortController();
    const order: string[] = [];
    const gone = track(hold.wait(10_000, abort.signal), order, 'gone');
    const next = track(hold.wait(10_000), order, 'next');
    abort.abort();
    await settle();
    expect(gone.result).to.equal(false);
    expect(hold.held).to.equal(1);
    gate.open();
    await settle();
    expect(next.result).to.equal(true);
    expect(order).to.deep.equal(['next']);
    const early = track(hold.wait(10_000, AbortSignal.abort()));
    await settle();
    expect(early.result).to.equal(false);
  });

  it('close refuses every held request and stops waiting on the gate', async () => {
    const hold = holdWhileClosed(gate, vts);
    gate.close();
    const a = track(hold.wait(10_000));
    const b = track(hold.wait(10_000));
    hold.close();
    await settle();
    expect([a.result, b.result]).to.deep.equal([false, false]);
    expect(liveTimers()).to.equal(0);
    const after = track(hold.wait(10_000));
    await settle();
    expect(after.result).to.equal(false);
  });
});
