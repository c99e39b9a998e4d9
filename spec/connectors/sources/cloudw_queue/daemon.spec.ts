/**
 * The `cloudw_queue` source and sink in the daemon: the example config (config/examples) moves
 * every message of one queue into a FIFO queue, credentials from the CLOUDW_* variables, and the
 * source deletes only what the sink delivered.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../../helpers/wait.js';
import { repoRoot, runWeir, startWeir } from '../../../helpers/weir-process.js';
import { type Fauxqs, SQS_SIGV4, TEST_KEYS, startFauxqs } from '../../../peers/fauxqs.js';
import { type SqsProxy, startSqsProxy } from '../../../peers/sqs-proxy.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-cloudw-queue-daemon-'));
const example = readFileSync(join(repoRoot, 'config/examples/cloudw_queue.toml'), 'utf8');
const env = { CLOUDW_ACCESS_KEY_ID: TEST_KEYS.access_key_id, CLOUDW_SECRET_ACCESS_KEY: TEST_KEYS.secret_access_key };

describe('connectors/sources/cloudw_queue: the daemon with the example config', function () {
  this.timeout(90_000);
  let sqs: Fauxqs;
  let proxy: SqsProxy;
  before(async () => {
    sqs = await startFauxqs();
    proxy = await startSqsProxy(sqs.endpoint, { sigv4: SQS_SIGV4 });
  });
  after(async () => {
    await proxy.close();
    await sqs.close();
  });

  /** The example pointed at the emulator's queues through the checking proxy. */
  function config(from: string, to: string): string {
    const file = join(tmp, `c${Math.random().toString(36).slice(2)}.toml`);
    writeFileSync(
      file,
      example
        .replace('queue_url = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders"', `queue_url = "${from}"`)
        .replace('queue_url = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-by-customer.fifo"', `queue_url = "${to}"`)
        .replaceAll('region = "eu-west-1"', `region = "us-east-1"\nendpoint = "${proxy.url}"`)
        .replace('poll_secs = 20', 'poll_secs = 1'),
    );
    return file;
  }

  it('queue -> FIFO queue: every message moved once, grouped and deduplicated by its fields; the first queue left empty', async () => {
    const from = await sqs.createQueue('daemon-orders');
    const to = await sqs.createQueue('daemon-orders.fifo');
    const orders = Array.from({ length: 60 }, (_, i) => ({ customer: `c${i % 3}`, order_id: `o${i}` }));
    // two orders per message: the example frames bodies by newline
    const bodies: string[] = [];
    for (let i = 0; i < orders.length; i += 2) bodies.push(`${JSON.stringify(orders[i])}\n${JSON.stringify(orders[i + 1])}`);
    await sqs.send(from, bodies);
    const p = startWeir(['--config', config(from, to), '--require-healthy'], { env });
    try {
      const got = await sqs.receive(to, 60, 60_000);
      const seen = got.map((m) => {
        const body = JSON.parse(m.Body!) as { customer: string; order_id: string; source_type: string };
        expect(m.Attributes?.MessageGroupId).to.equal(body.customer);
        expect(m.Attributes?.MessageDeduplicationId).to.equal(body.order_id);
        expect(body.source_type).to.equal('cloudw_queue');
        return body.order_id;
      });
      expect(seen.sort()).to.deep.equal(orders.map((o) => o.order_id).sort());
      await until(() => proxy.calls.filter((c) => c.operation === 'DeleteMessageBatch').reduce((n, c) => n + (c.body.Entries as unknown[]).length, 0) === 30, 20_000, '30 deletes');
      expect(await sqs.depth(from)).to.deep.equal({ visible: 0, inFlight: 0 });
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it('weir validate refuses poll_secs = 25 and names it', async () => {
    const file = join(tmp, 'bad.toml');
    writeFileSync(file, example.replace('poll_secs = 20', 'poll_secs = 25'));
    const r = await runWeir(['validate', '--no-environment', '--config', file]);
    expect(r.code).to.not.equal(0);
    expect(r.stdout + r.stderr).to.match(/sources\.orders\.poll_secs: must be between 0 and 20/);
  });
});
