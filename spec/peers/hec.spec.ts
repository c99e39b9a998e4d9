/**
 * The strict Splunk HEC peer: metric events in both forms are stored; bodies, tokens and channels
 * Splunk refuses get Splunk's status, code and text; indexer acknowledgements follow Splunk's
 * protocol, including late, never and lost acks.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { type HecPeer, startHec } from './hec.js';

describe('peers: strict Splunk HEC server', () => {
  let hec: HecPeer;
  const channel = randomUUID();
  beforeEach(async () => {
    hec = await startHec({ tokens: { good: { acks: true }, plain: { acks: false }, scoped: { acks: false, indexes: ['metrics'] }, off: { disabled: true } } });
  });
  afterEach(() => hec.close());

  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${hec.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
    }));
  const send = (body: string | Buffer, token = 'plain', extra: Record<string, string> = {}) => post('/services/collector/event', body, { authorization: `Splunk ${token}`, ...extra });

  describe('metric events', () => {
    it('stores single-metric events sent back to back with no separator', async () => {
      const a = { event: 'metric', fields: { _value: 3, env: 'prod', host: 'h1', metric_name: 'app.requests' }, time: 1700000000.123, host: 'h1', index: 'metrics' };
      const b = { event: 'metric', fields: { _value: '0.5', metric_name: 'app.load' }, time: 1700000001 };
      const r = await send(JSON.stringify(a) + JSON.stringify(b));
      expect(r).to.deep.equal({ status: 200, body: { text: 'Success', code: 0 } });
      expect(hec.metrics).to.deep.equal([
        { name: 'app.requests', value: 3, dimensions: { env: 'prod', host: 'h1' }, time: 1700000000.123, host: 'h1', source: undefined, sourcetype: undefined, index: 'metrics', token: 'plain' },
        { name: 'app.load', value: 0.5, dimensions: {}, time: 1700000001, host: undefined, source: undefined, sourcetype: undefined, index: undefined, token: 'plain' },
      ]);
    });

    it('stores the multi-metric form and accepts whitespace between events and a gzip body', async () => {
      const e = { event: 'metric', time: '1700000000', fields: { region: 'eu', 'metric_name:cpu.usr': 11.1, 'metric_name:cpu.sys': 12.2 } };
      const body = gzipSync(`${JSON.stringify(e)}\n  \n${JSON.stringify({ ...e, fields: { 'metric_name:mem': 1 } })}`);
      expect((await send(body, 'plain', { 'content-encoding': 'gzip' })).status).to.equal(200);
      expect(hec.metrics.map((m) => [m.name, m.value, m.dimensions, m.time])).to.deep.equal([
        ['cpu.usr', 11.1, { region: 'eu' }, 1700000000],
        ['cpu.sys', 12.2, { region: 'eu' }, 1700000000],
        ['mem', 1, {}, 1700000000],
      ]);
    });

    it('accepts a metric event a metrics index would drop, and records why', async () => {
      const r = await send(JSON.stringify({ event: 'metric', fields: { metric_name: 'x', _value: 'abc' } }) + JSON.stringify({ event: 'metric', fields: { _value: 1 } }));
      expect(r.status).to.equal(200);
      expect(hec.metrics).to.deep.equal([]);
      expect(hec.droppedMetrics.map((d) => d.reason)).to.deep.equal(['metric x: value "abc" is not numeric', 'metric_name is missing or not a string']);
    });
  });

  describe('refused bodies', () => {
    const cases: [string, string, number, Record<string, unknown>][] = [
      ['an empty body', '', 400, { text: 'No data', code: 5 }],
      ['a JSON array', '[{"event":"x"}]', 400, { text: 'Invalid data format', code: 6, 'invalid-event-number': 0 }],
      ['broken JSON in the second event', '{"event":"a"}{"event":', 400, { text: 'Invalid data format', code: 6, 'invalid-event-number': 1 }],
      ['an event without `event`', '{"event":"a"}{"fields":{"a":"b"}}', 400, { text: 'Event field is required', code: 12, 'invalid-event-number': 1 }],
      ['a blank event', '{"event":""}', 400, { text: 'Event field cannot be blank', code: 13, 'invalid-event-number': 0 }],
      ['nested indexed fields', '{"event":"metric","fields":{"a":{"b":1}}}', 400, { text: 'Error in handling indexed fields', code: 15, 'invalid-event-number': 0 }],
      ['a time that is not a number', '{"event":"a","time":"yesterday"}', 400, { text: 'Invalid data format', code: 6, 'invalid-event-number': 0 }],
      ['a host that is not a string', '{"event":"a","host":5}', 400, { text: 'Invalid data format', code: 6, 'invalid-event-number': 0 }],
    ];
    for (const [what, body, status, answer] of cases) {
      it(`refuses ${what}`, async () => {
        expect(await send(body)).to.deep.equal({ status, body: answer });
      });
    }
    it('indexes the events before a bad one', async () => {
      await send('{"event":"a"}{"event":"b"}[]');
      expect(hec.events.map((e) => e.event)).to.deep.equal(['a', 'b']);
    });
    it('refuses an index the token may not write with code 7', async () => {
      expect(await send('{"event":"metric","index":"main","fields":{"metric_name":"a","_value":1}}', 'scoped')).to.deep.equal({ status: 400, body: { text: 'Incorrect index', code: 7, 'invalid-event-number': 0 } });
      expect((await send('{"event":"metric","index":"metrics","fields":{"metric_name":"a","_value":1}}', 'scoped')).status).to.equal(200);
    });
  });

  describe('authorization', () => {
    it('answers as Splunk for a missing, malformed, unknown or disabled token', async () => {
      const body = '{"event":"a"}';
      expect(await post('/services/collector/event', body)).to.deep.equal({ status: 401, body: { text: 'Token is required', code: 2 } });
      expect(await post('/services/collector/event', body, { authorization: 'Bearer plain' })).to.deep.equal({ status: 401, body: { text: 'Invalid authorization', code: 3 } });
      expect(await send(body, 'nope')).to.deep.equal({ status: 403, body: { text: 'Invalid token', code: 4 } });
      expect(await send(body, 'off')).to.deep.equal({ status: 403, body: { text: 'Token disabled', code: 1 } });
    });
    it('takes the token as the Basic password and on /services/collector', async () => {
      const basic = `Basic ${Buffer.from(`x:plain`).toString('base64')}`;
      expect((await post('/services/collector', '{"event":"a"}', { authorization: basic })).status).to.equal(200);
    });
  });

  describe('indexer acknowledgements', () => {
    const withChannel = (c: string) => ({ 'x-splunk-request-channel': c });
    const ackQuery = (acks: number[], c = channel, token = 'good') => post('/services/collector/ack', JSON.stringify({ acks }), { authorization: `Splunk ${token}`, ...withChannel(c) });

    it('needs a GUID channel when the token has acks on', async () => {
      expect(await send('{"event":"a"}', 'good')).to.deep.equal({ status: 400, body: { text: 'Data channel is missing', code: 10 } });
      expect(await send('{"event":"a"}', 'good', withChannel('not-a-guid'))).to.deep.equal({ status: 400, body: { text: 'Invalid data channel', code: 11 } });
    });

    it('numbers acks per channel from 0, reports each true once, then forgets it', async () => {
      expect((await send('{"event":"a"}', 'good', withChannel(channel))).body).to.deep.equal({ text: 'Success', code: 0, ackId: 0 });
      expect((await send('{"event":"b"}', 'good', withChannel(channel))).body).to.deep.equal({ text: 'Success', code: 0, ackId: 1 });
      const other = randomUUID();
      const viaQuery = await post(`/services/collector/event?channel=${other}`, '{"event":"c"}', { authorization: 'Splunk good' });
      expect(viaQuery.body).to.deep.equal({ text: 'Success', code: 0, ackId: 0 });
      expect(await ackQuery([0, 1, 7])).to.deep.equal({ status: 200, body: { acks: { '0': true, '1': true, '7': false } } });
      expect((await ackQuery([0])).body).to.deep.equal({ acks: { '0': false } });
      expect((await ackQuery([0], other)).body).to.deep.equal({ acks: { '0': true } });
      expect(hec.ackQueries).to.have.length(3);
    });

    it('acks late: false for the first K queries of an id', async () => {
      hec.setAckMode({ afterQueries: 2 });
      await send('{"event":"a"}', 'good', withChannel(channel));
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push(((await ackQuery([0])).body.acks as Record<string, boolean>)['0']);
      expect(seen).to.deep.equal([false, false, true]);
    });

    it('never acks, or loses chosen ids', async () => {
      hec.setAckMode({ never: true });
      await send('{"event":"a"}', 'good', withChannel(channel));
      expect((await ackQuery([0])).body).to.deep.equal({ acks: { '0': false } });
      hec.setAckMode({ lose: (id) => id === 1 });
      await send('{"event":"b"}', 'good', withChannel(channel));
      expect((await ackQuery([0, 1])).body).to.deep.equal({ acks: { '0': true, '1': false } });
      expect((await ackQuery([1])).body).to.deep.equal({ acks: { '1': false } });
    });

    it('gives no ackId to a token without acks, whose ack endpoint answers code 14', async () => {
      expect((await send('{"event":"a"}', 'plain', withChannel(channel))).body).to.deep.equal({ text: 'Success', code: 0 });
      expect(await ackQuery([0], channel, 'plain')).to.deep.equal({ status: 400, body: { text: 'ACK is disabled', code: 14 } });
    });

    it('refuses an ack query without a channel or with a bad body', async () => {
      expect(await post('/services/collector/ack', '{"acks":[0]}', { authorization: 'Splunk good' })).to.deep.equal({ status: 400, body: { text: 'Data channel is missing', code: 10 } });
      expect((await post('/services/collector/ack', '{"acks":"0"}', { authorization: 'Splunk good', ...withChannel(channel) })).body).to.deep.equal({ text: 'Invalid data format', code: 6 });
    });
  });

  describe('health', () => {
    it('answers code 17 when healthy, 503 code 18 when queues are full, 400 for a bad token', async () => {
      for (const path of ['/services/collector/health', '/services/collector/health/1.0']) {
        const r = await fetch(`${hec.url}${path}`, { headers: { authorization: 'Splunk good' } });
        expect([r.status, await r.json()]).to.deep.equal([200, { text: 'HEC is healthy', code: 17 }]);
      }
      const bad = await fetch(`${hec.url}/services/collector/health/1.0`, { headers: { authorization: 'Splunk nope' } });
      expect([bad.status, await bad.json()]).to.deep.equal([400, { text: 'Invalid token', code: 4 }]);
      hec.setHealthy(false);
      const full = await fetch(`${hec.url}/services/collector/health`);
      expect([full.status, await full.json()]).to.deep.equal([503, { text: 'HEC is unhealthy, queues are full', code: 18 }]);
    });
  });
});
