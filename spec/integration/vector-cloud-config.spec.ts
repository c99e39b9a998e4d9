/**
 * A Vector config for the cloud components, unchanged: Vector's type names (`aws_sqs`, `remap`,
 * `aws_s3`), Vector's YAML, and credentials from the `AWS_*` variables only. `weir validate`
 * accepts it and the daemon moves the queue's messages into the bucket (the SQS and S3 emulators).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Fauxqs, startFauxqs } from '../peers/fauxqs.js';
import { S3RVER_CREDENTIALS, type S3Peer, startS3 } from '../peers/s3.js';
import { BUCKET, readClient, readObjects } from '../connectors/sinks/cloudw_object_storage/harness.js';
import { runWeir, startWeir } from '../helpers/weir-process.js';

describe('a Vector config of cloud components runs unchanged (Vector type names, AWS_* variables)', function () {
  this.timeout(120_000);
  let dir: string;
  let sqs: Fauxqs;
  let s3: S3Peer;
  let queueUrl: string;
  let file: string;
  // only the variables Vector users set: no CLOUDW_* and no auth table
  const env = {
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
    CLOUDW_ACCESS_KEY_ID: '',
    CLOUDW_SECRET_ACCESS_KEY: '',
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-vector-cloud-'));
    sqs = await startFauxqs();
    s3 = await startS3([BUCKET]);
    queueUrl = await sqs.createQueue('vector-orders');
    file = join(dir, 'vector.yaml');
    writeFileSync(
      file,
      `sources:
  orders:
    type: aws_sqs
    queue_url: "${queueUrl}"
    endpoint: "${sqs.endpoint}"
    poll_secs: 1
    decoding:
      codec: json

transforms:
  enrich:
    type: remap
    inputs: [orders]
    source: |
      .total = to_int!(.qty) * to_int!(.price)

sinks:
  archive:
    type: aws_s3
    inputs: [enrich]
    bucket: ${BUCKET}
    endpoint: "${s3.url}"
    key_prefix: "orders/"
    compression: none
    encoding:
      codec: json
    framing:
      method: newline_delimited
`,
    );
  });

  after(async () => {
    await sqs?.close();
    await s3?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('weir validate accepts it', async () => {
    const r = await runWeir(['validate', file], { env });
    expect(r.code, r.stdout + r.stderr).to.equal(0);
  });

  it('the daemon moves every message into the bucket through the remap, and the queue ends empty', async () => {
    const p = startWeir(['--config', file], { env });
    await sqs.send(queueUrl, [1, 2, 3, 4, 5].map((i) => JSON.stringify({ id: i, qty: i, price: 10 })));
    let depth = { visible: 1, inFlight: 1 };
    for (const deadline = Date.now() + 60_000; depth.visible + depth.inFlight > 0 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 200));
      depth = await sqs.depth(queueUrl);
    }
    expect(depth, p.stderr()).to.deep.equal({ visible: 0, inFlight: 0 });
    // the bucket's batch timeout is 300 s: shutdown writes the open batch
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    const objects = await readObjects(readClient(s3.url), 'orders/');
    const events = objects.flatMap((o) => o.body.trim().split('\n')).map((l) => JSON.parse(l) as { id: number; total: number });
    expect(events.map((e) => [e.id, e.total]).sort((a, b) => a[0]! - b[0]!)).to.deep.equal([
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
      [5, 50],
    ]);
  });
});
