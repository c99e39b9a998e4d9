/**
 * The strict InfluxDB 2.x write peer: checked once with the official `@influxdata/influxdb-client`
 * (what it writes is stored, what the server refuses reaches the client as InfluxDB's error),
 * then against the answers InfluxDB 2 gives for bad auth, unknown org or bucket, bad lines, and
 * field type conflicts.
 */
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { HttpError, InfluxDB, Point, setLogger } from '@influxdata/influxdb-client';
import { type Influxdb2Peer, startInfluxdb2 } from './influxdb2.js';

// the client logs every failed write to the console; the tests assert on the errors instead
setLogger({ error: () => {}, warn: () => {} });

describe('peers: strict InfluxDB 2.x write server', () => {
  let peer: Influxdb2Peer;
  beforeEach(async () => {
    peer = await startInfluxdb2({ token: 't0k3n', orgs: { acme: ['metrics', 'other'] } });
  });
  afterEach(() => peer.close());

  const post = (query: string, body: string | Buffer, headers: Record<string, string> = { authorization: 'Token t0k3n' }) =>
    fetch(`${peer.url}/api/v2/write?${query}`, { method: 'POST', body, headers }).then(async (r) => ({ status: r.status, text: await r.text() }));

  describe('with the official client', () => {
    it('stores the points the client writes, typed as written', async () => {
      const client = new InfluxDB({ url: peer.url, token: 't0k3n' });
      const api = client.getWriteApi('acme', 'metrics', 'ns', { maxRetries: 0, gzipThreshold: 0 });
      api.writePoint(
        new Point('app requests')
          .tag('host', 'a,b')
          .tag('region', 'eu=1')
          .floatField('value', 0.64)
          .intField('count', 3)
          .uintField('big', '18446744073709551615')
          .booleanField('ok', true)
          .stringField('msg', 'say "hi" \\ there')
          .timestamp('1700000000123456789'),
      );
      api.writeRecord('mem,host=b used=12i 1700000001000000000');
      await api.close();
      expect(peer.requests[0]!.headers['content-encoding']).to.equal('gzip');
      expect(peer.points.map(({ line: _line, ...p }) => p)).to.deep.equal([
        {
          measurement: 'app requests',
          tags: { host: 'a,b', region: 'eu=1' },
          fields: {
            value: { type: 'float', value: 0.64 },
            count: { type: 'integer', value: 3n },
            big: { type: 'unsigned', value: 18446744073709551615n },
            ok: { type: 'boolean', value: true },
            msg: { type: 'string', value: 'say "hi" \\ there' },
          },
          time: 1700000000123456789n,
          org: 'acme',
          bucket: 'metrics',
          precision: 'ns',
        },
        { measurement: 'mem', tags: { host: 'b' }, fields: { used: { type: 'integer', value: 12n } }, time: 1700000001000000000n, org: 'acme', bucket: 'metrics', precision: 'ns' },
      ]);
    });

    it('refuses a malformed line: the client gets 400 with InfluxDB error JSON and nothing is stored', async () => {
      const api = new InfluxDB({ url: peer.url, token: 't0k3n' }).getWriteApi('acme', 'metrics', 'ns', { maxRetries: 0 });
      api.writeRecord('cpu value=1 1700000000000000000');
      api.writeRecord('cpu,host=a');
      const err = await api.close().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(HttpError);
      expect((err as HttpError).statusCode).to.equal(400);
      expect((err as HttpError).json).to.deep.equal({ code: 'invalid', message: "unable to parse 'cpu,host=a': missing fields" });
      expect(peer.points).to.deep.equal([]);
    });

    it('sends the token the server refuses: 401', async () => {
      const api = new InfluxDB({ url: peer.url, token: 'wrong' }).getWriteApi('acme', 'metrics', 'ns', { maxRetries: 0 });
      api.writeRecord('cpu value=1');
      const err = (await api.close().catch((e: unknown) => e)) as HttpError;
      expect(err.statusCode).to.equal(401);
      expect(err.json).to.deep.equal({ code: 'unauthorized', message: 'unauthorized access' });
    });
  });

  it('answers a missing or wrong Authorization with 401', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Token nope' }, { authorization: 'Bearer t0k3n' }, { authorization: 't0k3n' }];
    for (const headers of variants) {
      const r = await post('org=acme&bucket=metrics', 'cpu value=1', headers);
      expect(r.status, JSON.stringify(headers)).to.equal(401);
    }
  });

  it('answers an unknown org or bucket with 404 and a missing one with 400', async () => {
    expect(await post('org=nope&bucket=metrics', 'cpu value=1')).to.deep.equal({ status: 404, text: JSON.stringify({ code: 'not found', message: 'organization name "nope" not found' }) });
    expect(await post('org=acme&bucket=nope', 'cpu value=1')).to.deep.equal({ status: 404, text: JSON.stringify({ code: 'not found', message: 'bucket "nope" not found' }) });
    expect((await post('bucket=metrics', 'cpu value=1')).status).to.equal(400);
    expect((await post('org=acme', 'cpu value=1')).status).to.equal(400);
  });

  it('refuses a body with one bad line whole, naming every bad line', async () => {
    const r = await post('org=acme&bucket=metrics', 'cpu value=1\ncpu value=tru\nmem,host= x=1\nok value=2');
    expect(r.status).to.equal(400);
    expect(JSON.parse(r.text)).to.deep.equal({ code: 'invalid', message: "unable to parse 'cpu value=tru': invalid boolean\nunable to parse 'mem,host= x=1': missing tag value" });
    expect(peer.points).to.deep.equal([]);
  });

  it('refuses an empty body and an unknown precision with 400', async () => {
    expect(await post('org=acme&bucket=metrics', '\n# only a comment\n')).to.deep.equal({ status: 400, text: JSON.stringify({ code: 'invalid', message: 'writing requires points' }) });
    expect((await post('org=acme&bucket=metrics&precision=n', 'cpu value=1')).status).to.equal(400);
  });

  it('scales timestamps by precision and gives lines without one the receive time', async () => {
    expect((await post('org=acme&bucket=metrics&precision=s', 'a value=1 1700000000')).status).to.equal(204);
    expect((await post('org=acme&bucket=metrics&precision=ms', 'b value=1 1700000000123')).status).to.equal(204);
    const before = BigInt(Date.now()) * 1_000_000n;
    expect((await post('org=acme&bucket=metrics', 'c value=1')).status).to.equal(204);
    expect(peer.pointsOf('a')[0]!.time).to.equal(1700000000000000000n);
    expect(peer.pointsOf('b')[0]!.time).to.equal(1700000000123000000n);
    expect(peer.pointsOf('c')[0]!.time >= before).to.equal(true);
  });

  it('reads gzip bodies and refuses a corrupt one with 400', async () => {
    const gz = { authorization: 'Token t0k3n', 'content-encoding': 'gzip' };
    expect((await post('org=acme&bucket=other', gzipSync('cpu,host=z value=5 1'), gz)).status).to.equal(204);
    expect(peer.pointsOf('cpu', 'other')[0]!.tags).to.deep.equal({ host: 'z' });
    expect((await post('org=acme&bucket=other', Buffer.from('not gzip'), gz)).status).to.equal(400);
  });

  it('refuses a field whose type differs from the stored one with 422, keeping the rest', async () => {
    expect((await post('org=acme&bucket=metrics', 'm count=1i 1')).status).to.equal(204);
    const r = await post('org=acme&bucket=metrics', 'm count=2u 2\nm count=3i 3');
    expect(r.status).to.equal(422);
    expect(JSON.parse(r.text)).to.deep.equal({
      code: 'unprocessable entity',
      message: 'failure writing points to database: partial write: field type conflict: input field "count" on measurement "m" is type unsigned, already exists as type integer dropped=1',
    });
    expect(peer.pointsOf('m').map((p) => p.time)).to.deep.equal([1n, 3n]);
  });

  it('answers /health, /ping and /ready as InfluxDB 2 does', async () => {
    const health = await fetch(`${peer.url}/health`);
    expect(health.status).to.equal(200);
    expect(((await health.json()) as { status: string }).status).to.equal('pass');
    const ping = await fetch(`${peer.url}/ping`);
    expect(ping.status).to.equal(204);
    expect(ping.headers.get('x-influxdb-build')).to.equal('OSS');
    expect((await fetch(`${peer.url}/ready`)).status).to.equal(200);
  });

  it('injects faults before the protocol: the next requests answer 503 then 429', async () => {
    peer.failNext(503);
    peer.failNext(429, 1, '{"code":"too many requests"}');
    expect((await post('org=acme&bucket=metrics', 'cpu value=1')).status).to.equal(503);
    expect((await post('org=acme&bucket=metrics', 'cpu value=1')).status).to.equal(429);
    expect((await post('org=acme&bucket=metrics', 'cpu value=1')).status).to.equal(204);
    expect(peer.points).to.have.length(1);
  });
});
