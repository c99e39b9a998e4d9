import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { CloudwQueueSourceConfig } from '../../../../connectors/sources/cloudw_queue/config.js';
import { cloudwQueueSource } from '../../../../connectors/sources/cloudw_queue/index.js';
import { runWeir } from '../../../helpers/weir-process.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/events';
const base = { type: 'cloudw_queue', queue_url: QUEUE, region: 'eu-west-1' };

describe('connectors/sources/cloudw_queue: config', function () {
  this.timeout(60_000);

  it('has the documented defaults: poll 15 s, one client per core, bytes framing and codec', () => {
    const c = v.parse(CloudwQueueSourceConfig, base);
    expect(c).to.include({ poll_secs: 15, visibility_timeout_secs: 300, delete_message: true, client_concurrency: availableParallelism() });
    expect(c.decoding).to.deep.equal({ codec: 'bytes' });
    expect(c.framing.method).to.equal('bytes');
    expect(cloudwQueueSource.acknowledges).to.equal(true);
    expect(cloudwQueueSource.aliases).to.deep.equal(['aws_sqs']);
  });

  it('accepts the full option set', () => {
    const c = v.parse(CloudwQueueSourceConfig, {
      ...base,
      endpoint: 'http://127.0.0.1:4566',
      poll_secs: 0,
      visibility_timeout_secs: 30,
      delete_message: false,
      client_concurrency: 4,
      auth: { access_key_id: 'a', secret_access_key: 'b', assume_role: 'arn:aws:iam::123456789012:role/r', credentials_file: '/tmp/creds', profile: 'p' },
      decoding: { codec: 'syslog' },
      framing: { method: 'character_delimited', character_delimited: { delimiter: '|', max_length: 100 } },
      proxy: { enabled: true, https: 'http://127.0.0.1:3128', no_proxy: ['localhost'] },
      tls: { verify_certificate: false },
      acknowledgements: { enabled: true },
    });
    expect(c).to.include({ poll_secs: 0, client_concurrency: 4, delete_message: false });
  });

  it('weir validate names the refused option: poll_secs out of range, a missing region, the codec', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-cloudw-queue-src-'));
    const cases: [string, RegExp][] = [
      [`region = "eu-west-1"\npoll_secs = 25`, /sources\.in\.poll_secs: .*between 0 and 20/],
      [`region = "eu-west-1"\npoll_secs = -1`, /sources\.in\.poll_secs/],
      ['', /sources\.in\.region: region is required when endpoint is not set/],
      [`region = "eu-west-1"\ndecoding.codec = "gelf"`, /sources\.in\.decoding\.codec/],
      [`region = "eu-west-1"\nclient_concurrency = 0`, /sources\.in\.client_concurrency/],
      [`region = "eu-west-1"\nvisibility_timeout_secs = 50000`, /sources\.in\.visibility_timeout_secs/],
    ];
    // one run: validate reports every problem at once
    const file = join(dir, 'all.toml');
    const sources = cases.map(([lines], i) => `[sources.s${i}]\ntype = "cloudw_queue"\nqueue_url = "${QUEUE}"\n${lines}\n`).join('\n');
    writeFileSync(file, `${sources}\n[sinks.out]\ntype = "blackhole"\ninputs = ["s*"]\n`);
    const r = await runWeir(['validate', '--no-environment', '--config', file]);
    expect(r.code).to.not.equal(0);
    cases.forEach(([lines, expected], i) => expect(r.stdout + r.stderr, lines).to.match(new RegExp(expected.source.replace('sources\\.in', `sources\\.s${i}`))));
  });
});
