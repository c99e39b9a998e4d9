/**
 * The real InfluxDB 1.x peer, and the line-protocol reader checked against it: every line of the
 * table goes to `influxd` and to {@link parseLineProtocol}; both must accept it (with the same
 * stored values) or refuse it with the same `unable to parse` text.
 */
import { expect } from 'chai';
import { type Influxdb1, sharedInfluxdb1 } from './influxdb1.js';
import { type FieldValue, parseLineProtocol } from './line-protocol.js';

let db: Influxdb1;
let n = 0;
const freshDb = async (): Promise<string> => {
  const name = `weir_lp_${process.pid}_${n++}`;
  await db.createDatabase(name);
  return name;
};
const write = async (base: Influxdb1, query: string, body: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base.url}/write?${query}`, { method: 'POST', body, headers });
  return { status: res.status, text: await res.text() };
};

/** Lines and what InfluxDB 1.x does with each (the reason is checked against the server too). */
const LINES: { line: string; reason?: string }[] = [
  { line: 'cpu value=1' },
  { line: 'cpu,host=a,region=eu value=0.64,count=3i,ok=true,msg="hi there" 1700000000123456789' },
  { line: 'cpu\\ load,ho\\,st=a\\ b,k\\=x=v value=1,msg="say \\"hi\\" \\\\ ok",f=F,t=True' },
  { line: 'cpu value=-1.5e3,neg=-7i,dot=.5,trail=2.' },
  { line: 'cpu' , reason: 'missing fields' },
  { line: 'cpu,host=a', reason: 'missing fields' },
  { line: ',host=a value=1', reason: 'missing measurement' },
  { line: 'cpu,host value=1', reason: 'missing tag value' },
  { line: 'cpu,=a value=1', reason: 'missing tag key' },
  { line: 'cpu,host= value=1', reason: 'missing tag value' },
  { line: 'cpu,host=a=b value=1', reason: 'invalid tag format' },
  { line: 'cpu,host=a,host=b value=1', reason: 'duplicate tags' },
  { line: 'cpu value=', reason: 'missing field value' },
  { line: 'cpu value', reason: 'invalid field format' },
  { line: 'cpu =1', reason: 'missing field key' },
  { line: 'cpu value=1,', reason: 'invalid field format' },
  { line: 'cpu value="unterminated', reason: 'unbalanced quotes' },
  { line: 'cpu value=1.2.3', reason: 'invalid number' },
  { line: 'cpu value=1.5i', reason: 'invalid number' },
  { line: 'cpu value=-', reason: 'invalid number' },
  { line: 'cpu value=NaN', reason: 'invalid number' },
  { line: 'cpu value=5u', reason: 'invalid number' },
  { line: 'cpu value=tru', reason: 'invalid boolean' },
  { line: 'cpu value=1e400', reason: 'invalid float' },
  { line: 'cpu value=99999999999999999999i', reason: 'unable to parse integer 99999999999999999999: strconv.ParseInt: parsing "99999999999999999999": value out of range' },
  { line: 'cpu value=1 abc', reason: 'bad timestamp' },
  { line: 'cpu value=1 1700000000000000000 extra', reason: 'point is invalid' },
];

const plain = (v: FieldValue): unknown => (v.type === 'integer' || v.type === 'unsigned' ? Number(v.value) : v.value);

describe('peers: real InfluxDB 1.x', function () {
  this.timeout(60_000);
  before(async () => {
    db = await sharedInfluxdb1();
  });

  it('answers /ping with 204 and round-trips a write through /query', async () => {
    expect((await fetch(`${db.url}/ping`)).status).to.equal(204);
    const name = await freshDb();
    const w = await write(db, `db=${name}&precision=ns`, 'cpu,host=a value=0.64,count=3i 1700000000123456789\nmem,host=b used=12i 1700000001000000000');
    expect(w.status, w.text).to.equal(204);
    expect(await db.select(name, 'cpu')).to.deep.equal([{ time: 1700000000123456789n, count: 3, host: 'a', value: 0.64 }]);
    expect(await db.select(name, 'mem')).to.deep.equal([{ time: 1700000001000000000n, host: 'b', used: 12 }]);
  });

  it('refuses a write to a missing database with 404', async () => {
    const w = await write(db, 'db=weir_no_such_db', 'cpu value=1');
    expect(w.status).to.equal(404);
    expect(JSON.parse(w.text)).to.deep.equal({ error: 'database not found: "weir_no_such_db"' });
  });

  it('accepts gzip bodies and the v1 query parameters rp and consistency', async () => {
    const { gzipSync } = await import('node:zlib');
    const name = await freshDb();
    const res = await fetch(`${db.url}/write?db=${name}&rp=autogen&consistency=any&precision=s`, { method: 'POST', body: gzipSync('cpu value=2 1700000000'), headers: { 'content-encoding': 'gzip' } });
    expect(res.status).to.equal(204);
    expect(await db.select(name, 'cpu')).to.deep.equal([{ time: 1700000000000000000n, value: 2 }]);
  });

  it('has no v2 write API (404), so the v2 peer is a separate server', async () => {
    const res = await fetch(`${db.url}/api/v2/write?org=o&bucket=b`, { method: 'POST', body: 'cpu value=1', headers: { authorization: 'Token x' } });
    expect(res.status).to.equal(404);
  });

  describe('with auth-enabled', () => {
    let secure: Influxdb1;
    before(async () => {
      secure = await sharedInfluxdb1({ auth: true });
      await secure.createDatabase('weir_auth');
    });
    it('refuses missing or wrong credentials and the v2 token form with 401', async () => {
      expect((await write(secure, 'db=weir_auth', 'cpu value=1')).status).to.equal(401);
      expect((await write(secure, 'db=weir_auth&u=admin&p=wrong', 'cpu value=1')).status).to.equal(401);
      expect((await write(secure, 'db=weir_auth', 'cpu value=1', { authorization: 'Token admin:weir-secret' })).status).to.equal(401);
    });
    it('accepts u/p query parameters and Basic auth', async () => {
      const { username, password } = secure.credentials!;
      expect((await write(secure, `db=weir_auth&u=${username}&p=${password}`, 'cpu value=1 1')).status).to.equal(204);
      const basic = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      expect((await write(secure, 'db=weir_auth', 'cpu value=2 2', { authorization: basic })).status).to.equal(204);
      expect((await secure.select('weir_auth', 'cpu')).map((r) => r.value)).to.deep.equal([1, 2]);
    });
  });

  describe('the line-protocol reader agrees with influxd', () => {
    for (const { line, reason } of LINES) {
      it(`${reason ? 'refuses' : 'accepts'}: ${line}`, async () => {
        const name = await freshDb();
        const w = await write(db, `db=${name}&precision=ns`, line);
        const ours = parseLineProtocol(line, { precision: 'ns', unsigned: false });
        if (reason) {
          expect(w.status, w.text).to.equal(400);
          expect(JSON.parse(w.text)).to.deep.equal({ error: `unable to parse '${line}': ${reason}` });
          expect(ours.errors).to.deep.equal([`unable to parse '${line}': ${reason}`]);
          return;
        }
        expect(w.status, w.text).to.equal(204);
        expect(ours.errors).to.deep.equal([]);
        const [p] = ours.points;
        const rows = await db.select(name, p!.measurement);
        expect(rows).to.have.length(1);
        const fields = Object.fromEntries(Object.entries(p!.fields).map(([k, v]) => [k, plain(v)]));
        const expected: Record<string, unknown> = { ...p!.tags, ...fields };
        const { time, ...stored } = rows[0]!;
        expect(stored).to.deep.equal(expected);
        if (/ \d+$/.test(line)) expect(time).to.equal(p!.time);
      });
    }
  });
});
