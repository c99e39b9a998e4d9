import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { CloudwQueueSinkConfig } from '../../../../connectors/sinks/cloudw_queue/config.js';
import { cloudwQueueSink } from '../../../../connectors/sinks/cloudw_queue/index.js';
import { cloudwQueueHealthcheck } from '../../../../connectors/sinks/cloudw_queue/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type Fauxqs, SQS_SIGV4, startFauxqs } from '../../../peers/fauxqs.js';
import { type SqsProxy, startSqsProxy } from '../../../peers/sqs-proxy.js';
import { queueConfig } from './harness.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/events';
const base = { type: 'cloudw_queue', inputs: ['in'], queue_url: QUEUE, region: 'eu-west-1' };

const dir = mkdtempSync(join(tmpdir(), 'weir-cloudw-queue-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudw_queue"\ninputs = ["in"]\n${sink}\n`);
  let out = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w);
  return { code, out };
}

describe('connectors/sinks/cloudw_queue: config', () => {
  it('has the documented defaults (rate 5, retry waits up to 10 s, 30 s per attempt) and takes logs only', () => {
    const c = v.parse(CloudwQueueSinkConfig, base);
    expect(c.request).to.include({ rate_limit_num: 5, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 10, timeout_secs: 30, retry_initial_backoff_secs: 1, rate_limit_duration_secs: 1 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.encoding).to.include({ codec: 'json', timestamp_format: 'rfc3339' });
    expect(c.healthcheck.enabled).to.equal(true);
    expect(cloudwQueueSink.input).to.equal('log');
    expect(cloudwQueueSink.aliases).to.deep.equal(['aws_sqs']);
  });

  it('accepts the full option set', () => {
    const c = v.parse(CloudwQueueSinkConfig, {
      ...base,
      queue_url: `${QUEUE}.fifo`,
      endpoint: 'http://127.0.0.1:4566',
      message_group_id: '{{ app }}',
      message_deduplication_id: '{{ id }}-%s',
      encoding: { codec: 'text', except_fields: ['x'] },
      auth: { access_key_id: 'a', secret_access_key: 'b', profile: 'p', load_timeout_secs: 2 },
      request: { concurrency: 3, rate_limit_num: 50, retry_attempts: 4, timeout_secs: 5 },
      tls: { verify_certificate: false },
      proxy: { https: 'http://127.0.0.1:3128' },
      buffer: { max_events: 100 },
      acknowledgements: { enabled: true },
      healthcheck: false,
    });
    expect(c.message_group_id).to.equal('{{ app }}');
    expect(c.request.rate_limit_num).to.equal(50);
    expect(c.healthcheck.enabled).to.equal(false);
  });

  it('weir validate names each refused option', async () => {
    const cases: [string, RegExp][] = [
      [`queue_url = "${QUEUE}"`, /sinks\.out\.region: region is required when endpoint is not set/],
      [`queue_url = "${QUEUE}.fifo"\nregion = "eu-west-1"`, /sinks\.out\.message_group_id: message_group_id is required for a FIFO queue/],
      [`queue_url = "${QUEUE}"\nregion = "eu-west-1"\nmessage_group_id = "g"`, /sinks\.out\.message_group_id: message_group_id applies only to FIFO queues/],
      [`queue_url = "${QUEUE}"\nregion = "eu-west-1"\nmessage_deduplication_id = "d"`, /sinks\.out\.message_deduplication_id: message_deduplication_id applies only to FIFO queues/],
      [`queue_url = "${QUEUE}.fifo"\nregion = "eu-west-1"\nmessage_group_id = "{{ app"`, /sinks\.out\.message_group_id: .*template/],
      [`queue_url = "${QUEUE}"\nregion = "eu-west-1"\nbatch.max_events = 5`, /sinks\.out\.batch/],
      [`queue_url = "${QUEUE}"\nregion = "eu-west-1"\nencoding.codec = "ndjson"`, /sinks\.out\.encoding\.codec/],
      [`queue_url = "not a url"\nregion = "eu-west-1"`, /sinks\.out\.queue_url: must be a URL/],
    ];
    for (const [lines, expected] of cases) {
      const r = await validate(lines);
      expect(r.code, lines).to.not.equal(0);
      expect(r.out, lines).to.match(expected);
    }
    const ok = await validate(`queue_url = "${QUEUE}"\nregion = "eu-west-1"`);
    expect(ok.code, ok.out).to.equal(0);
  });
});

describe('connectors/sinks/cloudw_queue: health check', function () {
  this.timeout(30_000);
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
  beforeEach(() => proxy.reset());

  it('asks GetQueueAttributes of the queue: healthy when it exists, failing when it does not', async () => {
    const url = await sqs.createQueue('hc');
    const ctx = testSinkContext('cloudw_queue');
    await cloudwQueueHealthcheck(queueConfig(proxy.url, url), ctx);
    expect(proxy.calls.map((c) => [c.operation, c.body.QueueUrl])).to.deep.equal([['GetQueueAttributes', url]]);
    const missing = url.replace(/hc$/, 'missing');
    let failed: Error | undefined;
    await cloudwQueueHealthcheck(queueConfig(proxy.url, missing), ctx).catch((e: Error) => (failed = e));
    expect(failed?.name).to.match(/QueueDoesNotExist|NonExistentQueue/);
  });

  it('healthcheck.enabled = false: no call', async () => {
    await cloudwQueueHealthcheck(queueConfig(proxy.url, `${sqs.endpoint}/000000000000/none`, { healthcheck: { enabled: false } }), testSinkContext('cloudw_queue'));
    expect(proxy.calls).to.have.length(0);
  });
});
