import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { CloudgPubsubConfig, DEFAULT_ENDPOINT } from '../../../../connectors/sinks/cloudg_pubsub/config.js';
import { cloudgPubsubSink } from '../../../../connectors/sinks/cloudg_pubsub/index.js';
import { catalog } from '../../../../connectors/index.js';

const base = { type: 'cloudg_pubsub', inputs: ['in'], project: 'weir-test', topic: 'logs', encoding: { codec: 'json' } };

const dir = mkdtempSync(join(tmpdir(), 'weir-pubsub-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has the base options plus `sink` (TOML lines). */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  const enc = sink.includes('encoding') ? '' : 'encoding.codec = "json"\n';
  const topic = sink.includes('topic =') ? '' : 'topic = "logs"\n';
  writeFileSync(file, `[sources.s]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudg_pubsub"\ninputs = ["s"]\nproject = "weir-test"\n${topic}${enc}${sink}\n`);
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

describe('connectors/sinks/cloudg_pubsub: config', () => {
  it('has the documented defaults (request, batch)', () => {
    const c = v.parse(CloudgPubsubConfig, base);
    expect(c.endpoint).to.equal(DEFAULT_ENDPOINT).and.equal('https://pubsub.googleapis.com');
    expect(c.batch).to.deep.equal({ max_events: 1000, max_bytes: 10_000_000, timeout_secs: 1 });
    expect(c.request).to.include({ rate_limit_num: 9.223372036854776e18, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 3600, timeout_secs: 60 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.attributes).to.deep.equal({});
    expect(cloudgPubsubSink.input).to.equal('log');
    expect(catalog.find('sink', 'gcp_pubsub')).to.equal(cloudgPubsubSink);
  });

  it('accepts the full option set', () => {
    v.parse(CloudgPubsubConfig, {
      ...base,
      api_key: 'AIzaSyD-abc_123',
      credentials_path: '/etc/weir/key.json',
      endpoint: 'http://127.0.0.1:8085',
      encoding: { codec: 'text', except_fields: ['secret'] },
      attributes: { host: '{{ host }}' },
      ordering_key: '{{ host }}',
      batch: { max_events: 500, max_bytes: 5_000_000, timeout_secs: 0.5 },
      request: { concurrency: 4 },
      tls: { verify_certificate: true },
      proxy: { enabled: false },
      healthcheck: { enabled: false },
      acknowledgements: { enabled: true },
    });
  });

  const cases: [string, string, string[]][] = [
    ['max_bytes over the service limit', 'batch.max_bytes = 10000001', ['sinks.out.batch.max_bytes: must be at most 10000000']],
    ['max_events over the service limit', 'batch.max_events = 1001', ['sinks.out.batch.max_events: must be at most 1000']],
    ['no encoding', 'encoding = {}', ['sinks.out.encoding.codec']],
    ['a codec the sink does not offer', 'encoding.codec = "ndjson"', ['sinks.out.encoding.codec', '"json", "text"']],
    ['an api_key that is not URL-safe base64', 'api_key = "a key/with+odd chars"', ['sinks.out.api_key: must be URL-safe base64']],
    ['a topic name the service refuses', 'topic = "t1"', ['sinks.out.topic: must be a topic name']],
    ['an endpoint that is not a URL', 'endpoint = "pubsub"', ['sinks.out.endpoint: must be a URL']],
    ['an attribute template that does not compile', 'attributes.host = "{{ host"', ['sinks.out.attributes.host: invalid template']],
    ['an unknown option', 'compression = "gzip"', ['sinks.out.compression: unknown option']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) expect(out).to.include(e);
    });
  }
});
