/**
 * The strict Humio / LogScale HEC peer: it reads the HEC body with the Splunk peer's reader, stores
 * events per the ingest token's repository, and refuses what LogScale refuses (a bad token, an
 * index other than the token's repository, envelopes with no known member, bad JSON).
 */
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { type HumioPeer, startHumio } from './humio.js';

describe('peers: strict Humio / LogScale HEC server', () => {
  let humio: HumioPeer;
  beforeEach(async () => {
    humio = await startHumio({ tokens: { tok: { repository: 'metrics-repo', parser: 'kv' } } });
  });
  afterEach(() => humio.close());

  const post = (path: string, body: string | Buffer, headers: Record<string, string> = { authorization: 'Bearer tok' }) =>
    fetch(`${humio.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
    }));

  const metricLog = {
    event: { counter: { value: 3 }, host: 'h1', kind: 'incremental', name: 'requests', namespace: 'app', tags: { env: 'prod' } },
    fields: { '#env': 'prod', team: 'core' },
    time: 1700000000.5,
    host: 'h1',
    sourcetype: 'metrics_parser',
  };

  it('stores concatenated envelopes on every HEC path, with tags from # fields and ms timestamps', async () => {
    for (const path of ['/api/v1/ingest/hec', '/services/collector', '/services/collector/event']) {
      const r = await post(path, JSON.stringify(metricLog) + JSON.stringify({ event: 'plain line' }), { authorization: 'Splunk tok', 'x-splunk-request-channel': 'c1' });
      expect(r).to.deep.equal({ status: 200, body: { text: 'Success', code: 0 } });
    }
    expect(humio.events).to.have.length(6);
    const { envelope: _envelope, ...first } = humio.events[0]!;
    expect(first).to.deep.equal({
      repository: 'metrics-repo',
      timestamp: 1700000000500,
      timezone: undefined,
      event: metricLog.event,
      host: 'h1',
      source: undefined,
      parser: 'metrics_parser',
      tags: { env: 'prod' },
      fields: { team: 'core' },
      channel: 'c1',
    });
    expect(humio.events[1]!.parser).to.equal('kv');
  });

  it('takes the ingest token as Bearer, Splunk or Basic password, and refuses others with 401', async () => {
    expect((await post('/api/v1/ingest/hec', '{"event":"a"}')).status).to.equal(200);
    expect((await post('/api/v1/ingest/hec', '{"event":"a"}', { authorization: `Basic ${Buffer.from('u:tok').toString('base64')}` })).status).to.equal(200);
    expect((await post('/api/v1/ingest/hec', '{"event":"a"}', {})).status).to.equal(401);
    expect((await post('/api/v1/ingest/hec', '{"event":"a"}', { authorization: 'Bearer other' })).status).to.equal(401);
  });

  it('reads gzip bodies', async () => {
    expect((await post('/services/collector/event', gzipSync(JSON.stringify(metricLog)), { authorization: 'Bearer tok', 'content-encoding': 'gzip' })).status).to.equal(200);
    expect(humio.events[0]!.event).to.deep.equal(metricLog.event);
  });

  it('refuses an index other than the token repository, and stores nothing of that request', async () => {
    const r = await post('/api/v1/ingest/hec', JSON.stringify({ event: 'a', index: 'metrics-repo' }) + JSON.stringify({ event: 'b', index: 'elsewhere' }));
    expect(r.status).to.equal(400);
    expect(r.body['invalid-event-number']).to.equal(1);
    expect(humio.events).to.deep.equal([]);
  });

  it('accepts envelopes without event but refuses one with no known member, bad JSON and no data', async () => {
    expect((await post('/api/v1/ingest/hec', '{"fields":{"a":"b"}}')).status).to.equal(200);
    expect((await post('/api/v1/ingest/hec', '{"unknown":1}')).status).to.equal(400);
    expect((await post('/api/v1/ingest/hec', '{"event":')).status).to.equal(400);
    expect(await post('/api/v1/ingest/hec', '  ')).to.deep.equal({ status: 400, body: { text: 'No data', code: 5 } });
  });

  it('answers the HEC health path (the metrics sink checks it) and /api/v1/status', async () => {
    expect((await fetch(`${humio.url}/services/collector/health/1.0`)).status).to.equal(200);
    expect((await fetch(`${humio.url}/api/v1/status`)).status).to.equal(200);
    const strict = await startHumio({ hecHealth: false });
    expect((await fetch(`${strict.url}/services/collector/health/1.0`)).status).to.equal(404);
    await strict.close();
  });
});
