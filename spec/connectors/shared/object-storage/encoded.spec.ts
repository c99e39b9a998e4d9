import { expect } from 'chai';
import { createObjectBodyEncoder } from '../../../../connectors/shared/object-storage/index.js';
import { joinBatch } from '../../../../connectors/shared/object-storage/body.js';
import { objectEventEncoder } from '../../../../connectors/shared/object-storage/encoded.js';
import { SpentLogEvent, logEvent } from '../../../../lib/event.js';
import { TemplateError } from '../../../../lib/template.js';

const body = createObjectBodyEncoder({ codec: 'json' }, { method: 'newline_delimited' });
/** Partition by the `app` field; a missing one is a template error, as a key prefix's would be. */
const byApp = (e: ReturnType<typeof logEvent>) => {
  const app = e.fields.app;
  if (typeof app !== 'string') throw new TemplateError('{{ app }}/', 'missing field(s) app');
  return `${app}/`;
};
const text = (x: { bytes: Buffer; start: number; end: number }) => x.bytes.toString('utf8', x.start, x.end);

describe('connectors/shared/object-storage: encoded events', () => {
  it("holds each event's text as bytes and its key; the event's fields go", () => {
    const enc = objectEventEncoder(body, byApp as never);
    const a = enc.encode(logEvent({ message: 'é', app: 'web' }));
    const b = enc.encode(logEvent({ message: 'b' }));
    expect(text(a)).to.equal('{"message":"é","app":"web"}');
    expect(a.size).to.equal(Buffer.byteLength('{"message":"é","app":"web"}'));
    expect(enc.partition(a)).to.equal('web/');
    expect(() => enc.partition(b)).to.throw(TemplateError, 'missing field(s) app');
    expect(a.event).to.be.instanceOf(SpentLogEvent);
    expect((a.event as SpentLogEvent).fields).to.deep.equal({});
    const { raw, events } = joinBatch(body, [a, b], enc.release);
    expect(raw.toString()).to.equal('{"message":"é","app":"web"}\n{"message":"b"}');
    expect(events).to.deep.equal([a.event, b.event]);
  });

  it("a batch's buffers take new records only once the batch was joined, and never over records still held", () => {
    const enc = objectEventEncoder(body, byApp as never);
    const long = 'z'.repeat(2000);
    const batch = (from: number) => Array.from({ length: 300 }, (_, i) => enc.encode(logEvent({ message: `${from + i} ${long}`, app: 'a' })));
    const first = batch(0); // about 600 KB: three buffers
    const kept = first.slice(0, 150);
    const texts = kept.map(text);
    joinBatch(body, first.slice(150), enc.release);
    const second = batch(1000);
    expect(kept.map(text)).to.deep.equal(texts);
    const held = new Set(kept.map((x) => x.bytes));
    for (const x of second) expect(held.has(x.bytes)).to.equal(false);
    joinBatch(body, kept, enc.release);
    joinBatch(body, second, enc.release);
    const firstBuffers = new Set(first.map((x) => x.bytes));
    const third = batch(2000);
    expect(third.some((x) => firstBuffers.has(x.bytes))).to.equal(true);
    const { raw } = joinBatch(body, third, enc.release);
    expect(raw.toString()).to.equal(third.map((_, i) => JSON.stringify({ message: `${2000 + i} ${long}`, app: 'a' })).join('\n'));
  });

  it('an event the codec cannot encode leaves nothing behind', () => {
    const enc = objectEventEncoder(body, byApp as never);
    const a = enc.encode(logEvent({ message: 'a', app: 'x' }));
    const cyclic: Record<string, unknown> = { message: 'b', app: 'x' };
    cyclic.self = cyclic;
    expect(() => enc.encode(logEvent(cyclic as never))).to.throw();
    const c = enc.encode(logEvent({ message: 'c', app: 'x' }));
    expect(c.start).to.equal(a.end);
    expect(joinBatch(body, [a, c], enc.release).raw.toString()).to.equal('{"message":"a","app":"x"}\n{"message":"c","app":"x"}');
  });
});
