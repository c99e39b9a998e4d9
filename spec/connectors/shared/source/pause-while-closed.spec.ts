import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { type Observable, defer, finalize, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { RESUME_PER_TURN, pauseWhileClosed } from '../../../../connectors/shared/source/pause-while-closed.js';
import { type Gate, GateController } from '../../../../lib/gate.js';

/** A gate whose `open$` subscriptions are counted: how many were taken, how many are live. */
function countedGate(initial = true) {
  const ctl = new GateController(initial);
  const counts = { taken: 0, live: 0 };
  const gate: Gate = {
    get isOpen() {
      return ctl.isOpen;
    },
    open$: defer(() => {
      counts.taken++;
      counts.live++;
      return ctl.open$.pipe(finalize(() => counts.live--));
    }) as Observable<boolean>,
  };
  return { ctl, gate, counts };
}

describe('pauseWhileClosed', () => {
  let rx: TestScheduler;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  });

  it('pauses two readables while the gate is closed and resumes both together when it opens, on one subscription', () =>
    rx.run(({ hot, expectObservable }) => {
      const { ctl, gate, counts } = countedGate();
      const a = new PassThrough();
      const b = new PassThrough();
      a.resume();
      b.resume();
      const gated = pauseWhileClosed(gate);
      // A/B = data read on a/b (the source asks to pause), c/o = the gate closes/opens
      const actions: Record<string, () => void> = {
        A: () => gated.pauseIfClosed(a),
        B: () => gated.pauseIfClosed(b),
        c: () => ctl.close(),
        o: () => ctl.open(),
      };
      // each frame: which are paused (a, b) and how many gate subscriptions are live
      const state = () => `${a.isPaused() ? 'P' : 'r'}${b.isPaused() ? 'P' : 'r'}${counts.live}`;
      const steps = hot('-A-c-A-B-A---o-A-B', { A: 'A', B: 'B', c: 'c', o: 'o' });
      expectObservable(
        steps.pipe(
          map((n) => {
            actions[n]!();
            return state();
          }),
        ),
      ).toBe('-x-x-y-z-z---x-x-x', { x: 'rr0', y: 'Pr1', z: 'PP1' });
      rx.flush();
      // while closed, three pauses on two readables took one subscription; it ended on opening
      expect(counts.taken).to.equal(1);
      expect(counts.live).to.equal(0);
    }));

  it('a readable that closed is forgotten: opening the gate does not resume it', () => {
    const { ctl, gate } = countedGate();
    const a = new PassThrough();
    const b = new PassThrough();
    a.resume();
    b.resume();
    const gated = pauseWhileClosed(gate);
    ctl.close();
    gated.pauseIfClosed(a);
    gated.pauseIfClosed(b);
    gated.forget(a);
    ctl.open();
    expect(a.isPaused()).to.equal(true);
    expect(b.isPaused()).to.equal(false);
  });

  it('close() drops the subscription and leaves paused readables paused', () => {
    const { ctl, gate, counts } = countedGate();
    const a = new PassThrough();
    a.resume();
    const gated = pauseWhileClosed(gate);
    ctl.close();
    expect(gated.pauseIfClosed(a)).to.equal(true);
    expect(counts.live).to.equal(1);
    gated.close();
    expect(counts.live).to.equal(0);
    ctl.open();
    expect(a.isPaused()).to.equal(true);
  });

  it('an open gate pauses nothing and subscribes to nothing', () => {
    const { gate, counts } = countedGate();
    const a = new PassThrough();
    a.resume();
    expect(pauseWhileClosed(gate).pauseIfClosed(a)).to.equal(false);
    expect(a.isPaused()).to.equal(false);
    expect(counts.taken).to.equal(0);
  });

  it('pauses again after a reopen: a new subscription per closed period', () => {
    const { ctl, gate, counts } = countedGate();
    const a = new PassThrough();
    a.resume();
    const gated = pauseWhileClosed(gate);
    for (let i = 0; i < 3; i++) {
      ctl.close();
      gated.pauseIfClosed(a);
      gated.pauseIfClosed(a);
      expect(a.isPaused()).to.equal(true);
      ctl.open();
      expect(a.isPaused()).to.equal(false);
    }
    expect(counts.taken).to.equal(3);
    expect(counts.live).to.equal(0);
  });

  describe('many streams: resumed in rounds, longest-paused first', () => {
    /** `n` paused readables on a closed gate, paused in index order; the virtual clock paces the rounds. */
    function pausedStreams(n: number) {
      const { ctl, gate } = countedGate();
      const clock = new TestScheduler(() => undefined);
      const gated = pauseWhileClosed(gate, clock);
      const streams = Array.from({ length: n }, () => new PassThrough().resume());
      ctl.close();
      for (const s of streams) gated.pauseIfClosed(s);
      const running = () => streams.flatMap((s, i) => (s.isPaused() ? [] : [i]));
      return { ctl, clock, gated, streams, running };
    }

    it(`an opening resumes ${RESUME_PER_TURN}, the next turns the next ones while the gate stays open`, () => {
      const n = 2 * RESUME_PER_TURN + 6;
      const { ctl, clock, running } = pausedStreams(n);
      ctl.open();
      expect(running()).to.deep.equal([...Array(RESUME_PER_TURN).keys()]);
      clock.flush();
      // every turn a round, until none is left
      expect(running()).to.deep.equal([...Array(n).keys()]);
    });

    it('a gate closed again before the next round keeps the rest paused until it opens', () => {
      const n = 2 * RESUME_PER_TURN;
      const { ctl, clock, gated, streams, running } = pausedStreams(n);
      ctl.open();
      // the first round's reads close the gate; those streams pause again, behind the ones still waiting
      ctl.close();
      for (const s of streams.slice(0, RESUME_PER_TURN)) gated.pauseIfClosed(s);
      clock.flush();
      expect(running()).to.deep.equal([]);
      ctl.open();
      // the ones that waited longest come first
      expect(running()).to.deep.equal([...Array(RESUME_PER_TURN).keys()].map((i) => i + RESUME_PER_TURN));
      clock.flush();
      expect(running()).to.deep.equal([...Array(n).keys()]);
    });

    it('forgets a closed stream waiting for its round', () => {
      const n = RESUME_PER_TURN + 1;
      const { ctl, clock, gated, streams, running } = pausedStreams(n);
      gated.forget(streams[n - 1]!);
      ctl.open();
      clock.flush();
      expect(running()).to.deep.equal([...Array(RESUME_PER_TURN).keys()]);
    });
  });
});
