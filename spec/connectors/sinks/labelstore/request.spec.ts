import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { type Entry } from '../../../../connectors/sinks/labelstore/encoder.js';
import { streamText } from '../../../../connectors/sinks/labelstore/labels.js';
import { type OutOfOrderAction, createOrderer } from '../../../../connectors/sinks/labelstore/ordering.js';
import { buildRequest, groupByStream, nanosText } from '../../../../connectors/sinks/labelstore/request.js';
import { bodyFormat } from '../../../../connectors/sinks/labelstore/sink.js';
import { logEvent } from '../../../../lib/event.js';
import { decodeProtobuf } from './harness.js';

const stream = (pairs: [string, string][]) => ({ text: streamText(pairs), pairs });
const WEB = stream([['app', 'web'], ['env', 'prod']]);
const DB = stream([['app', 'db']]);

/** An entry at `ms` milliseconds (plus `ns`) after 2023-11-14T22:13:20Z. */
function entry(line: string, ms: number, s = WEB, ns = 0): Entry {
  return { event: logEvent({ message: line }), size: line.length, key: undefined, stream: s, tenant: '', ms: 1_700_000_000_000 + ms, ns, line };
}
const ns = (ms: number, rest = 0) => String(BigInt(1_700_000_000_000 + ms) * 1_000_000n + BigInt(rest));

function orderer(action: OutOfOrderAction) {
  const counts = { dropped: 0, rewritten: 0 };
  const order = createOrderer(action, { dropped: (n) => (counts.dropped += n), rewritten: (n) => (counts.rewritten += n) });
  return { order, counts };
}

describe('connectors/sinks/labelstore: requests', () => {
  describe('bodies', () => {
    it('snappy (default): one protobuf PushRequest in a raw snappy block, streams grouped, entries sorted, nanosecond timestamps', async () => {
      const { order } = orderer('accept');
      const req = await buildRequest([entry('b', 500, WEB, 7), entry('x', 0, DB), entry('a', 0, WEB, 999_999)], '', order, bodyFormat('snappy'));
      expect(decodeProtobuf(req.body)).to.deep.equal([
        { labels: '{app="web", env="prod"}', entries: [[ns(0, 999_999), 'a'], [ns(500, 7), 'b']] },
        { labels: '{app="db"}', entries: [[ns(0), 'x']] },
      ]);
      expect(req.bytes).to.equal(req.body.length);
      expect(req.events.map((e) => e.type === 'log' && e.fields.message)).to.deep.equal(['b', 'x', 'a']);
      expect(bodyFormat('snappy')).to.include({ contentType: 'application/x-protobuf', contentEncoding: 'snappy' });
    });

    it('none: the JSON form exactly, timestamps as decimal nanosecond strings, lines as strings', async () => {
      const { order } = orderer('accept');
      const req = await buildRequest([entry('GET "/"', 1, WEB), entry('x', 0, DB)], '', order, bodyFormat('none'));
      expect(req.body.toString()).to.equal(
        `{"streams":[{"stream":{"app":"web","env":"prod"},"values":[["${ns(1)}","GET \\"/\\""]]},{"stream":{"app":"db"},"values":[["${ns(0)}","x"]]}]}`,
      );
      expect(bodyFormat('none')).to.include({ contentType: 'application/json', contentEncoding: undefined });
    });

    it('gzip: the JSON form gzipped', async () => {
      const { order } = orderer('accept');
      const req = await buildRequest([entry('a', 0)], '', order, bodyFormat('gzip'));
      expect(gunzipSync(req.body).toString()).to.equal(`{"streams":[{"stream":{"app":"web","env":"prod"},"values":[["${ns(0)}","a"]]}]}`);
      expect(bodyFormat('gzip')).to.include({ contentType: 'application/json', contentEncoding: 'gzip' });
    });

    it('writes nanoseconds exactly, before 1970 too', () => {
      expect(nanosText(1_700_000_000_123, 456_789)).to.equal('1700000000123456789');
      expect(nanosText(0, 5)).to.equal('5');
      expect(nanosText(-1, 999_999)).to.equal('-1');
    });

    it('groups by the stream text, keeping first-seen stream order and arrival order', () => {
      const g = groupByStream([entry('1', 2), entry('2', 0, DB), entry('3', 1)]);
      expect(g.map((x) => [x.stream.text, x.entries.map((e) => e.line)])).to.deep.equal([
        [WEB.text, ['1', '3']],
        [DB.text, ['2']],
      ]);
    });
  });

  describe('out_of_order_action, per (tenant, stream)', () => {
    it('drop: entries older than the newest sent on their stream are refused and counted; equal times pass', async () => {
      const { order, counts } = orderer('drop');
      const f = bodyFormat('none');
      await buildRequest([entry('a', 10), entry('b', 20)], '', order, f);
      const req = await buildRequest([entry('old', 19), entry('same', 20), entry('new', 30), entry('other stream', 1, DB)], '', order, f);
      expect(req.refused!.map((e) => e.type === 'log' && e.fields.message)).to.deep.equal(['old']);
      expect(req.events.map((e) => e.type === 'log' && e.fields.message)).to.deep.equal(['same', 'new', 'other stream']);
      expect(req.body.toString()).to.not.include('"old"');
      expect(counts).to.deep.equal({ dropped: 1, rewritten: 0 });
    });

    it('drop: sorting inside a batch comes first, so a batch alone never drops its own entries', async () => {
      const { order, counts } = orderer('drop');
      const req = await buildRequest([entry('c', 3), entry('a', 1), entry('b', 2)], '', order, bodyFormat('snappy'));
      expect(decodeProtobuf(req.body)[0]!.entries.map((e) => e[1])).to.deep.equal(['a', 'b', 'c']);
      expect(counts.dropped).to.equal(0);
    });

    it('drop: a batch with every entry out of order has nothing to send', async () => {
      const { order } = orderer('drop');
      await buildRequest([entry('a', 10)], '', order, bodyFormat('none'));
      const req = await buildRequest([entry('x', 5), entry('y', 9, WEB, 999_999)], '', order, bodyFormat('none'));
      expect(req.events).to.deep.equal([]);
      expect(req.refused).to.have.length(2);
      expect(req.body.length).to.equal(0);
    });

    it('rewrite_timestamp: older entries take the newest time sent on their stream, and are counted', async () => {
      const { order, counts } = orderer('rewrite_timestamp');
      await buildRequest([entry('a', 10, WEB, 5)], '', order, bodyFormat('none'));
      const req = await buildRequest([entry('old', 3), entry('new', 11)], '', order, bodyFormat('snappy'));
      expect(decodeProtobuf(req.body)[0]!.entries).to.deep.equal([
        [ns(10, 5), 'old'],
        [ns(11), 'new'],
      ]);
      expect(req.refused).to.deep.equal([]);
      expect(counts).to.deep.equal({ dropped: 0, rewritten: 1 });
    });

    it('accept: sends everything, sorted per request, and keeps no state', async () => {
      const { order, counts } = orderer('accept');
      await buildRequest([entry('a', 10)], '', order, bodyFormat('none'));
      const req = await buildRequest([entry('late', 1), entry('later', 0)], '', order, bodyFormat('snappy'));
      expect(decodeProtobuf(req.body)[0]!.entries.map((e) => e[1])).to.deep.equal(['later', 'late']);
      expect(counts).to.deep.equal({ dropped: 0, rewritten: 0 });
    });

    it('keeps the state apart per tenant', async () => {
      const { order } = orderer('drop');
      await buildRequest([entry('a', 10)], 't1', order, bodyFormat('none'));
      expect((await buildRequest([entry('b', 5)], 't2', order, bodyFormat('none'))).refused).to.deep.equal([]);
      expect((await buildRequest([entry('c', 5)], 't1', order, bodyFormat('none'))).refused).to.have.length(1);
    });
  });
});
