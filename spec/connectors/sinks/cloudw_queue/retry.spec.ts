/** Per-entry answers of SendMessageBatch: what is delivered, resent or refused (rejected). */
import { expect } from 'chai';
import { classifyBatchAnswer } from '../../../../connectors/sinks/cloudw_queue/retry.js';
import { buildQueueRequest } from '../../../../connectors/sinks/cloudw_queue/request.js';
import type { LogEvent } from '../../../../lib/event.js';
import { log } from './harness.js';

const request = (n: number) =>
  buildQueueRequest(Array.from({ length: n }, (_, i) => ({ event: log(`m${i}`), size: 2, key: undefined, body: `m${i}`, groupId: undefined, deduplicationId: undefined })));
const ok = (...ids: string[]) => ids.map((Id) => ({ Id, MessageId: `id-${Id}`, MD5OfMessageBody: '' }));
const fail = (Id: string, SenderFault: boolean, Code = SenderFault ? 'InvalidParameterValue' : 'InternalError') => ({ Id, SenderFault, Code, Message: 'x' });
const msgs = (events: readonly unknown[]) => events.map((e) => (e as LogEvent).fields.message);

describe('connectors/sinks/cloudw_queue: per-entry answers', () => {
  it('all taken: ok, every event delivered', () => {
    const req = request(3);
    expect(classifyBatchAnswer({ Successful: ok('0', '1', '2'), Failed: [] }, req)).to.deep.equal({ kind: 'ok' });
    expect(req.events).to.have.length(3);
  });

  it('service faults: partial, the taken delivered, only the failed entries in the next request, ids kept', () => {
    const req = request(4);
    const v = classifyBatchAnswer({ Successful: ok('0', '2'), Failed: [fail('1', false), fail('3', false)] }, req);
    expect(v.kind).to.equal('partial');
    if (v.kind !== 'partial') return;
    expect(v.refused, 'nothing refused').to.equal(undefined);
    expect(msgs(v.delivered)).to.deep.equal(['m0', 'm2']);
    expect(v.rest.entries.map((e) => [e.Id, e.MessageBody])).to.deep.equal([
      ['1', 'm1'],
      ['3', 'm3'],
    ]);
    expect(msgs(v.rest.events)).to.deep.equal(['m1', 'm3']);
    expect(v.rest.bytes).to.equal(4);
  });

  it('sender faults: refused (rejected), never resent; the taken delivered, nothing left to send', () => {
    const req = request(3);
    const v = classifyBatchAnswer({ Successful: ok('0', '2'), Failed: [fail('1', true)] }, req);
    expect(v.kind).to.equal('partial');
    if (v.kind !== 'partial') return;
    expect(msgs(v.delivered)).to.deep.equal(['m0', 'm2']);
    expect(msgs(v.refused!.events)).to.deep.equal(['m1']);
    expect(v.refused!.reason.message).to.match(/InvalidParameterValue/);
    expect(v.rest.entries).to.deep.equal([]);
    expect(v.rest.events).to.deep.equal([]);
    expect(msgs(req.events), 'the request is left as it was').to.deep.equal(['m0', 'm1', 'm2']);
  });

  it('mixed: sender faults refused, service faults resent, the rest delivered', () => {
    const req = request(4);
    const v = classifyBatchAnswer({ Successful: ok('3'), Failed: [fail('0', true), fail('1', false), fail('2', true)] }, req);
    expect(v.kind).to.equal('partial');
    if (v.kind !== 'partial') return;
    expect(msgs(v.delivered)).to.deep.equal(['m3']);
    expect(msgs(v.rest.events)).to.deep.equal(['m1']);
    expect(msgs(v.refused!.events)).to.deep.equal(['m0', 'm2']);
    expect(v.error.message).to.match(/InternalError/);
  });

  it('every entry refused: nothing delivered, nothing left to send', () => {
    const req = request(2);
    const v = classifyBatchAnswer({ Successful: [], Failed: [fail('0', true), fail('1', true)] }, req);
    expect(v.kind).to.equal('partial');
    if (v.kind !== 'partial') return;
    expect(v.delivered).to.deep.equal([]);
    expect(v.rest.events).to.deep.equal([]);
    expect(msgs(v.refused!.events)).to.deep.equal(['m0', 'm1']);
  });

  it('an entry the answer does not mention is sent again (at least once)', () => {
    const req = request(3);
    const v = classifyBatchAnswer({ Successful: ok('0'), Failed: [] }, req);
    expect(v.kind).to.equal('partial');
    if (v.kind !== 'partial') return;
    expect(v.refused).to.equal(undefined);
    expect(msgs(v.rest.events)).to.deep.equal(['m1', 'm2']);
  });
});
