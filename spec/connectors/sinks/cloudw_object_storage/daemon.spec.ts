import type { S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWeir } from '../../../helpers/weir-process.js';
import { type S3Peer, startS3 } from '../../../peers/s3.js';
import { BUCKET, readClient, readObjects } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-s3-daemon-'));

describe('connectors/sinks/cloudw_object_storage: the daemon (compiled CLI)', function () {
  this.timeout(60_000);
  let s3: S3Peer;
  let reader: S3Client;
  before(async () => {
    s3 = await startS3([BUCKET]);
    reader = readClient(s3.url);
  });
  after(async () => {
    reader.destroy();
    await s3.close();
  });

  const config = (name: string, lines: string[], bucket = BUCKET) => {
    const file = join(tmp, `${name}.toml`);
    writeFileSync(
      file,
      [
        '[sources.in]',
        'type = "stdin"',
        'decoding.codec = "json"',
        '[sinks.archive]',
        'type = "aws_s3"', // Vector's name
        'inputs = ["in"]',
        `bucket = "${bucket}"`,
        `endpoint = "${s3.url}"`,
        'region = "us-east-1"',
        'auth.access_key_id = "S3RVER"',
        'auth.secret_access_key = "S3RVER"',
        'encoding.codec = "text"',
        ...lines,
        '',
      ].join('\n'),
    );
    return file;
  };

  it('stdin -> cloudw_object_storage: health check, the open batches written at shutdown (timeout 300 s), clean exit', async () => {
    const input = ['a', 'b', 'c'].map((m, i) => JSON.stringify({ message: m, svc: i === 1 ? 'db' : 'web' })).join('\n') + '\n';
    const p = startWeir(['--config', config('ok', ['key_prefix = "d/{{ svc }}/"']), '--require-healthy'], { input });
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(p.stderr()).to.include('0 events lost');
    const objects = await readObjects(reader, 'd/');
    expect(objects.map((o) => [o.key.replace(/[^/]+$/, ''), o.body, o.contentEncoding])).to.deep.equal([
      ['d/db/', 'b', 'gzip'],
      ['d/web/', 'a\nc', 'gzip'],
    ]);
    expect(objects.every((o) => /\/\d+-[0-9a-f-]{36}\.log\.gz$/.test(o.key))).to.equal(true);
  });

  it('with a disk_v1 buffer (allowed for this sink) every event is written', async () => {
    const input = Array.from({ length: 50 }, (_, i) => JSON.stringify({ message: `e${i}` })).join('\n') + '\n';
    const file = config('diskv1', ['key_prefix = "v1/"', 'buffer.type = "disk_v1"', 'buffer.max_size = 268435488', 'batch.max_events = 20']);
    writeFileSync(file, `data_dir = "${mkdtempSync(join(tmp, 'data-'))}"\n` + readFileSync(file, 'utf8'));
    const p = startWeir(['--config', file], { input });
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    const lines = (await readObjects(reader, 'v1/')).flatMap((o) => o.body.split('\n'));
    expect(lines.sort()).to.deep.equal(Array.from({ length: 50 }, (_, i) => `e${i}`).sort());
  });

  it('--require-healthy exits non-zero for an unknown bucket', async () => {
    const p = startWeir(['--config', config('nobucket', [], 'missing'), '--require-healthy'], { input: '{"message":"x"}\n' });
    const { code } = await p.exited;
    expect(code).to.equal(1);
    expect(p.stderr()).to.include('Healthcheck failed.').and.include('unknown bucket');
  });
});
