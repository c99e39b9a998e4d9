/** createTurnBatcher: one call per turn of the event loop, at most `max` items each, idle() after the last. */
import { expect } from 'chai';
import { createTurnBatcher } from '../../../../connectors/shared/source/turn-batcher.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('connectors/shared/source/turn-batcher', () => {
  it('items added in one turn go out in one call; a later turn makes another', async () => {
    const calls: number[][] = [];
    const b = createTurnBatcher<number>(10, async (items) => void calls.push(items));
    b.add(1);
    b.add(2);
    b.add(3);
    expect(calls).to.deep.equal([]);
    await turn();
    b.add(4);
    await b.idle();
    expect(calls).to.deep.equal([[1, 2, 3], [4]]);
  });

  it('a full call goes out at once; the rest waits for the turn', async () => {
    const calls: number[][] = [];
    const b = createTurnBatcher<number>(3, async (items) => void calls.push(items));
    for (let i = 0; i < 7; i++) b.add(i);
    expect(calls).to.deep.equal([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    await b.idle();
    expect(calls).to.deep.equal([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('idle() waits for calls still running; a rejected call does not reject idle()', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    let done = false;
    const b = createTurnBatcher<number>(5, async (items) => {
      if (items[0] === 1) {
        await slow;
        done = true;
      } else throw new Error('refused');
    });
    b.add(1);
    await turn();
    b.add(2);
    const idle = b.idle();
    setImmediate(release);
    await idle;
    expect(done).to.equal(true);
  });
});
