/**
 * The strict Loki push peer: both wire forms are read and stored, and what Loki refuses (bad
 * label sets, out-of-order entries before 2.4, a missing tenant in multi-tenant mode) is refused
 * with Loki's status and message.
 */
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { type LokiPeer, encodePushRequest, goTime, startLoki } from './loki.js';
import { parseLabelSet } from './loki-labels.js';
import { snappyCompress } from '../../lib/net/snappy.js';

const PROTO = { 'content-type': 'application/x-protobuf' };
const JSON_TYPE = { 'content-type': 'application/json' };

describe('peers: strict Loki push server', () => {
  let loki: LokiPeer;
  afterEach(() => loki?.close());
  const push = (body: Buffer | string, headers: Record<string, string>) =>
    fetch(`${loki.url}/loki/api/v1/push`, { method: 'POST', body, headers }).then(async (r) => ({ status: r.status, text: await r.text() }));

  describe('wire forms', () => {
    beforeEach(async () => {
      loki = await startLoki();
    });

    it('stores a snappy protobuf push with its tenant, labels, timestamps and structured metadata', async () => {
      const body = encodePushRequest([
        {
          labels: '{env="prod", app="web"}',
          entries: [
            { ts: 1700000000000000001n, line: 'GET /' },
            { ts: 1700000000500000000n, line: 'POST /x', structuredMetadata: { trace_id: 'abc' } },
          ],
        },
      ]);
      const r = await push(body, { ...PROTO, 'content-encoding': 'snappy', 'x-scope-orgid': 'team-a' });
      expect(r).to.deep.equal({ status: 204, text: '' });
      expect(loki.entries).to.deep.equal([
        { tenant: 'team-a', labels: { env: 'prod', app: 'web' }, stream: '{app="web", env="prod"}', ts: 1700000000000000001n, line: 'GET /', structuredMetadata: {} },
        { tenant: 'team-a', labels: { env: 'prod', app: 'web' }, stream: '{app="web", env="prod"}', ts: 1700000000500000000n, line: 'POST /x', structuredMetadata: { trace_id: 'abc' } },
      ]);
    });

    it('reads the protobuf form without a Content-Encoding header too (Loki always unsnappies it)', async () => {
      expect((await push(encodePushRequest([{ labels: '{a="1"}', entries: [{ ts: 5n, line: 'x' }] }]), PROTO)).status).to.equal(204);
      expect(loki.streamEntries('{a="1"}').map((e) => e.line)).to.deep.equal(['x']);
    });

    it('refuses a protobuf body that is not snappy-compressed', async () => {
      const r = await push(Buffer.from('plainly not snappy'), PROTO);
      expect(r.status).to.equal(400);
      expect(loki.entries).to.deep.equal([]);
    });

    it('stores the JSON form, plain and gzipped, with structured metadata as a third element', async () => {
      const doc = { streams: [{ stream: { app: 'web', env: 'prod' }, values: [['1700000000000000000', 'GET /'], ['1700000000500000000', 'POST /x', { user: 'u1' }]] }] };
      expect((await push(JSON.stringify(doc), JSON_TYPE)).status).to.equal(204);
      expect((await push(gzipSync(JSON.stringify(doc)), { ...JSON_TYPE, 'content-encoding': 'gzip' })).status).to.equal(204);
      const stored = loki.streamEntries('{app="web", env="prod"}');
      // the second push repeats stored entries (same time, same line): duplicates Loki drops silently
      expect(stored.map((e) => [e.ts, e.line, e.structuredMetadata])).to.deep.equal([
        [1700000000000000000n, 'GET /', {}],
        [1700000000500000000n, 'POST /x', { user: 'u1' }],
      ]);
    });

    it('refuses JSON timestamps that are numbers, and an unsupported Content-Encoding', async () => {
      expect((await push(JSON.stringify({ streams: [{ stream: { a: 'b' }, values: [[1700000000000000000, 'x']] }] }), JSON_TYPE)).status).to.equal(400);
      const r = await push(JSON.stringify({ streams: [] }), { ...JSON_TYPE, 'content-encoding': 'br' });
      expect(r).to.deep.equal({ status: 400, text: 'Content-Encoding "br" not supported\n' });
    });
  });

  describe('label validation', () => {
    beforeEach(async () => {
      loki = await startLoki({ maxLabelNames: 3 });
    });
    const cases: [string, string][] = [
      ['{}', 'error at least one label pair is required per stream'],
      ['{a="1", a="2"}', `stream '{a="1", a="2"}' has duplicate label name: 'a'`],
      ['{a="1", b="2", c="3", d="4"}', `entry for stream '{a="1", b="2", c="3", d="4"}' has 4 label names; limit 3`],
    ];
    for (const [labels, message] of cases) {
      it(`refuses ${labels} with Loki's message`, async () => {
        const r = await push(encodePushRequest([{ labels, entries: [{ ts: 1n, line: 'x' }] }]), PROTO);
        expect(r).to.deep.equal({ status: 400, text: `${message}\n` });
      });
    }
    for (const labels of ['{foo.bar="x"}', '{1a="x"}', '{a="say "hi""}', '{a=~"x"}', 'a="x"', '{a="x"', '{a=x}', '{a="\\q"}']) {
      it(`refuses the unparsable label set ${labels}`, async () => {
        const r = await push(encodePushRequest([{ labels, entries: [{ ts: 1n, line: 'x' }] }]), PROTO);
        expect(r.status).to.equal(400);
        expect(r.text).to.match(new RegExp(`^Error parsing labels '${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' with error: `));
      });
    }
    it('refuses a JSON stream with an invalid label name', async () => {
      const r = await push(JSON.stringify({ streams: [{ stream: { 'pod.name': 'x' }, values: [['1', 'l']] }] }), JSON_TYPE);
      expect(r.status).to.equal(400);
      expect(r.text).to.match(/^Error parsing labels '\{pod\.name="x"\}'/);
    });
    it('stores the valid streams of a request that also had an invalid one', async () => {
      const r = await push(
        encodePushRequest([
          { labels: '{ok="1"}', entries: [{ ts: 1n, line: 'kept' }] },
          { labels: '{}', entries: [{ ts: 1n, line: 'lost' }] },
        ]),
        PROTO,
      );
      expect(r.status).to.equal(400);
      expect(loki.entries.map((e) => e.line)).to.deep.equal(['kept']);
    });
    it('reads Go string escapes, a trailing comma and single-quoted values like the PromQL parser', () => {
      expect(parseLabelSet(`{ a = "x\\"y\\n" , b='z', }`)).to.deep.equal({ ok: true, pairs: [['a', 'x"y\n'], ['b', 'z']] });
    });
  });

  describe('ordering', () => {
    it('emulating Loki < 2.4, refuses entries older than the newest of their stream and keeps the rest', async () => {
      loki = await startLoki({ rejectOutOfOrder: true });
      const first = await push(encodePushRequest([{ labels: '{s="1"}', entries: [{ ts: 2_000_000_000n, line: 'b' }] }]), PROTO);
      expect(first.status).to.equal(204);
      const r = await push(
        encodePushRequest([
          { labels: '{s="1"}', entries: [{ ts: 1_500_000_000n, line: 'late' }, { ts: 3_000_000_000n, line: 'c' }] },
          { labels: '{s="2"}', entries: [{ ts: 1n, line: 'other stream' }] },
        ]),
        PROTO,
      );
      expect(r).to.deep.equal({
        status: 400,
        text: `entry with timestamp 1970-01-01 00:00:01.5 +0000 UTC ignored, reason: 'entry out of order' for stream: {s="1"},\ntotal ignored: 1 out of 2\n`,
      });
      expect(loki.entries.map((e) => e.line)).to.deep.equal(['b', 'c', 'other stream']);
    });

    it('keeps streams apart per tenant when checking order', async () => {
      loki = await startLoki({ rejectOutOfOrder: true });
      expect((await push(encodePushRequest([{ labels: '{s="1"}', entries: [{ ts: 10n, line: 'a' }] }]), { ...PROTO, 'x-scope-orgid': 't1' })).status).to.equal(204);
      expect((await push(encodePushRequest([{ labels: '{s="1"}', entries: [{ ts: 5n, line: 'b' }] }]), { ...PROTO, 'x-scope-orgid': 't2' })).status).to.equal(204);
    });

    it('by default (Loki 2.4+) accepts out-of-order entries', async () => {
      loki = await startLoki();
      expect((await push(encodePushRequest([{ labels: '{s="1"}', entries: [{ ts: 10n, line: 'a' }, { ts: 5n, line: 'b' }] }]), PROTO)).status).to.equal(204);
      expect(loki.entries.map((e) => e.ts)).to.deep.equal([10n, 5n]);
    });

    it('prints timestamps as Go does', () => {
      expect(goTime(1700000000123456789n)).to.equal('2023-11-14 22:13:20.123456789 +0000 UTC');
      expect(goTime(1700000000000000000n)).to.equal('2023-11-14 22:13:20 +0000 UTC');
    });
  });

  describe('tenancy, auth, readiness and faults', () => {
    it('in multi-tenant mode refuses a push without X-Scope-OrgID with 401', async () => {
      loki = await startLoki({ requireTenant: true });
      const body = encodePushRequest([{ labels: '{a="1"}', entries: [{ ts: 1n, line: 'x' }] }]);
      expect(await push(body, PROTO)).to.deep.equal({ status: 401, text: 'no org id\n' });
      expect((await push(body, { ...PROTO, 'x-scope-orgid': 'acme' })).status).to.equal(204);
      expect(loki.entries[0]!.tenant).to.equal('acme');
    });

    it('checks basic or bearer credentials when configured', async () => {
      loki = await startLoki({ auth: { user: 'u', password: 'p' } });
      const body = encodePushRequest([{ labels: '{a="1"}', entries: [{ ts: 1n, line: 'x' }] }]);
      expect((await push(body, PROTO)).status).to.equal(401);
      expect((await push(body, { ...PROTO, authorization: `Basic ${Buffer.from('u:p').toString('base64')}` })).status).to.equal(204);
      await loki.close();
      loki = await startLoki({ auth: { token: 'tok' } });
      expect((await push(body, { ...PROTO, authorization: 'Bearer nope' })).status).to.equal(401);
      expect((await push(body, { ...PROTO, authorization: 'Bearer tok' })).status).to.equal(204);
    });

    it('answers /ready with 200, or 503 while not ready', async () => {
      loki = await startLoki({ ready: false });
      expect((await fetch(`${loki.url}/ready`)).status).to.equal(503);
      loki.setReady(true);
      const r = await fetch(`${loki.url}/ready`);
      expect([r.status, await r.text()]).to.deep.equal([200, 'ready\n']);
    });

    it('injects 429 and 5xx answers, and connection resets, for fault tests', async () => {
      loki = await startLoki();
      const body = encodePushRequest([{ labels: '{a="1"}', entries: [{ ts: 1n, line: 'x' }] }]);
      loki.failNext(429, 1, 'Ingestion rate limit exceeded');
      loki.failNext(500);
      expect(await push(body, PROTO)).to.deep.equal({ status: 429, text: 'Ingestion rate limit exceeded' });
      expect((await push(body, PROTO)).status).to.equal(500);
      loki.fault = (_req, n) => (n === 2 ? 'reset' : undefined);
      const reset = await push(body, PROTO).then(
        () => 'answered',
        () => 'reset',
      );
      expect(reset).to.equal('reset');
      expect((await push(body, PROTO)).status).to.equal(204);
      expect(loki.entries).to.have.length(1);
      expect(loki.requests).to.have.length(4);
    });

    it('round-trips snappy blocks', () => {
      const big = Buffer.from('abc'.repeat(10_000));
      const c = snappyCompress(big);
      expect(c.length).to.be.lessThan(big.length / 10);
    });
  });
});
