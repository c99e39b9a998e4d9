/**
 * The `nats` source and sink in the daemon with the example config: events of a JetStream stream
 * go through a durable consumer to a subject per region, published through JetStream. The sink
 * fails while no stream stores its subjects (it gives up quickly here), so the source's messages
 * are negatively acknowledged and come back; once the stream exists everything arrives, each
 * order once (the message id header), and the consumer has nothing left unacknowledged.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, type NatsConnection, StringCodec, connect } from 'nats';
import { repoRoot, startWeir } from '../../../helpers/weir-process.js';
import { type NatsServer, sharedNatsServer } from '../../../peers/nats-server.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-nats-daemon-'));
const example = readFileSync(join(repoRoot, 'config/examples/nats.toml'), 'utf8');
const sc = StringCodec();

describe('connectors/sources/nats: the daemon with the example config', function () {
  this.timeout(90_000);
  let server: NatsServer;
  let nc: NatsConnection;
  before(async () => {
    server = await sharedNatsServer('users');
    nc = await connect({ servers: server.url });
  });
  after(async () => {
    await nc.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a failing sink makes the consumer deliver again; once it is healthy every order arrives once and all are acknowledged', async () => {
    const jsm = await nc.jetstreamManager();
    // the example's names; the stream may remain from an earlier run in this process
    await jsm.streams.delete('ORDERS').catch(() => undefined);
    await jsm.streams.delete('PROCESSED').catch(() => undefined);
    await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
    await jsm.consumers.add('ORDERS', { durable_name: 'weir', ack_policy: AckPolicy.Explicit });
    const js = nc.jetstream();
    const orders = Array.from({ length: 20 }, (_, i) => ({ order_id: `o${i}`, region: i % 2 === 0 ? 'eu' : 'us' }));
    for (const o of orders) await js.publish(`orders.${o.region}`, sc.encode(JSON.stringify(o)));

    const file = join(tmp, 'nats.toml');
    writeFileSync(
      file,
      example
        .replace('url = "nats://127.0.0.1:4222,nats://127.0.0.1:5222"', `url = "${server.url}"`)
        .replaceAll('url = "nats://127.0.0.1:4222"', `url = "${server.url}"`)
        // give up after one retry, so the source sees the failure and the consumer delivers again
        .replace('request.timeout_secs = 10', 'request.timeout_secs = 2\nrequest.retry_attempts = 1\nrequest.retry_max_duration_secs = 1'),
    );
    const p = startWeir(['--config', file]);
    try {
      // redelivered while the sink fails: the consumer's delivery count passes the stream's
      const deadline = Date.now() + 30_000;
      for (;;) {
        const info = await jsm.consumers.info('ORDERS', 'weir');
        if (info.delivered.consumer_seq > info.delivered.stream_seq) break;
        if (Date.now() > deadline || p.child.exitCode !== null) throw new Error(`no redelivery: ${JSON.stringify(info.delivered)}\n${p.stderr()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // nothing was acknowledged while the sink failed
      expect((await jsm.consumers.info('ORDERS', 'weir')).ack_floor.stream_seq).to.equal(0);
      // the sink becomes healthy
      await jsm.streams.add({ name: 'PROCESSED', subjects: ['processed.>'] });
      const done = async () => {
        const s = await jsm.streams.info('PROCESSED');
        const c = await jsm.consumers.info('ORDERS', 'weir');
        return s.state.messages === 20 && c.num_ack_pending === 0 && c.num_pending === 0;
      };
      const end = Date.now() + 60_000;
      while (!(await done())) {
        if (Date.now() > end || p.child.exitCode !== null) throw new Error(`not all delivered and acknowledged\n${p.stderr()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // each order once, on its region's subject, with the source's fields
      const seen: string[] = [];
      for (let seq = 1; seq <= 20; seq++) {
        const m = await jsm.streams.getMessage('PROCESSED', { seq });
        const body = JSON.parse(sc.decode(m.data)) as { order_id: string; region: string; subject: string; source_type: string };
        expect(m.subject).to.equal(`processed.${body.region}`);
        expect(body.subject).to.equal(`orders.${body.region}`);
        expect(body.source_type).to.equal('nats');
        seen.push(body.order_id);
      }
      expect(seen.sort()).to.deep.equal(orders.map((o) => o.order_id).sort());
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
});
