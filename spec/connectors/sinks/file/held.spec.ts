import { expect } from 'chai';
import { HeldWrites } from '../../../../connectors/sinks/file/held.js';
import { logEvent } from '../../../../lib/event.js';

describe('connectors/sinks/file: held writes', () => {
  it("a path's records become pieces, in order, before a piece joins them; the record count follows", () => {
    const held = new HeldWrites();
    const [a, b, c] = [logEvent({ message: 'a' }), logEvent({ message: 'b' }), logEvent({ message: 'c' })];
    held.add('p', undefined, a, 2);
    held.add('p', undefined, b, 2);
    held.add('q', undefined, c, 2);
    expect(held.records).to.equal(3);
    expect(held.size).to.equal(6);
    held.toPieces('p', (e) => `<${(e as typeof a).fields.message}>`);
    held.add('p', 'x', logEvent({ message: 'x' }));
    expect(held.get('p')!.pieces).to.deep.equal(['<a>', '<b>', 'x']);
    expect(held.records).to.equal(1);
    // a path already holding pieces is left as it is
    held.toPieces('p', () => 'never');
    expect(held.get('p')!.pieces).to.have.length(3);
    held.take('q');
    expect(held.records).to.equal(0);
    held.add('r', undefined, c, 2);
    held.takeAll();
    expect([held.records, held.size, held.paths]).to.deep.equal([0, 0, 0]);
  });
});
