import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { LabelstoreConfig } from '../../../../connectors/sinks/labelstore/config.js';
import { labelstoreSink } from '../../../../connectors/sinks/labelstore/index.js';
import { effectiveRequest } from '../../../../connectors/sinks/labelstore/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';

const base = { type: 'labelstore', inputs: ['in'], endpoint: 'http://127.0.0.1:3100', labels: { app: 'web' }, encoding: { codec: 'json' } };

const dir = mkdtempSync(join(tmpdir(), 'weir-labelstore-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  const defaults = [
    sink.includes('endpoint =') ? '' : 'endpoint = "http://127.0.0.1:3100"',
    /^(encoding\.codec|\[sinks\.out\.encoding\])/m.test(sink) ? '' : 'encoding.codec = "json"',
  ].filter(Boolean);
  writeFileSync(file, `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "labelstore"\ninputs = ["in"]\n${defaults.join('\n')}\n${sink}\n`);
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

describe('connectors/sinks/labelstore: config', () => {
  it('has the documented defaults (request, batch) and takes logs only', () => {
    const c = v.parse(LabelstoreConfig, base);
    expect(c.path).to.equal('/loki/api/v1/push');
    expect(c).to.include({ out_of_order_action: 'drop', remove_label_fields: false, remove_timestamp: true, compression: 'snappy' });
    expect(c.tenant_id).to.equal(undefined);
    expect(c.batch).to.deep.equal({ max_events: 100_000, max_bytes: 1_000_000, timeout_secs: 1 });
    expect(c.request).to.include({ concurrency: 'none', rate_limit_num: 9.223372036854776e18, retry_attempts: 9.223372036854776e18, retry_max_duration_secs: 3600, timeout_secs: 60, retry_initial_backoff_secs: 1, rate_limit_duration_secs: 1 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.4, rtt_deviation_scale: 2.5 });
    expect(c.encoding).to.include({ codec: 'json', timestamp_format: 'rfc3339', metric_tag_values: 'single' });
    expect(c.healthcheck.enabled).to.equal(true);
    expect(c.buffer).to.deep.equal({ type: 'memory', max_events: 500, when_full: 'block' });
    expect(labelstoreSink.input).to.equal('log');
    expect(labelstoreSink.pullSize!(c)).to.equal(10_000);
  });

  it('accepts the full option set', () => {
    const c = v.parse(LabelstoreConfig, {
      ...base,
      endpoint: 'https://logs.example:3100/prefix',
      path: '/custom/push',
      labels: { app: '{{ app }}', 'pod_*': '{{ kubernetes.pod_labels }}', '{{ key }}': 'v' },
      tenant_id: '{{ tenant }}',
      out_of_order_action: 'accept',
      remove_label_fields: true,
      remove_timestamp: false,
      compression: 'gzip',
      encoding: { codec: 'avro', avro: { schema: '{"type":"record","name":"e","fields":[{"name":"message","type":"string"}]}' }, only_fields: ['message'], timestamp_format: 'unix' },
      auth: { strategy: 'basic', user: 'u', password: 'p' },
      batch: { max_events: 10, max_bytes: 1000, timeout_secs: 0.5 },
      request: { concurrency: 4, retry_attempts: 3, timeout_secs: 2 },
      tls: { verify_certificate: false },
      proxy: { http: 'http://127.0.0.1:3128' },
      acknowledgements: { enabled: true },
      healthcheck: { enabled: false },
      buffer: { type: 'memory', max_events: 10 },
    });
    expect(c.encoding.codec).to.equal('avro');
  });

  it('runs drop and rewrite_timestamp with concurrency 1 whatever is configured; accept keeps the configured concurrency', () => {
    const ctx = testSinkContext('labelstore');
    const config = (extra: Record<string, unknown>) => v.parse(LabelstoreConfig, { ...base, ...extra });
    expect(effectiveRequest(config({ request: { concurrency: 8 } }), ctx).concurrency).to.equal(1);
    expect(effectiveRequest(config({ out_of_order_action: 'rewrite_timestamp', request: { concurrency: 'adaptive' } }), ctx).concurrency).to.equal(1);
    expect(effectiveRequest(config({ out_of_order_action: 'accept', request: { concurrency: 8 } }), ctx).concurrency).to.equal(8);
    expect(effectiveRequest(config({ out_of_order_action: 'accept' }), ctx).concurrency).to.equal('none');
  });

  const cases: [string, string, (string | RegExp)[]][] = [
    ['no labels', '', ['sinks.out.labels: at least one label is required, e.g. labels.app = "{{ app }}"; keys are label names or templates, values are templates']],
    ['an empty labels table', 'labels = {}', ['sinks.out.labels: at least one label is required']],
    [
      'a label name with a dot',
      'labels."pod.name" = "{{ pod }}"',
      ['sinks.out.labels.pod.name: invalid label name "pod.name": a label name must match [a-zA-Z_][a-zA-Z0-9_]* (Prometheus label names), optionally ending in "*" to expand an object field into several labels; templates such as "{{ field }}" are allowed'],
    ],
    ['a label name starting with a digit', 'labels.1app = "x"', ['sinks.out.labels.1app: invalid label name "1app"']],
    ['a "*" inside a label name', 'labels."a*b" = "{{ x }}"', ['sinks.out.labels.a*b: invalid label name "a*b"']],
    ['a malformed label value template', 'labels.app = "{{ app"', ['sinks.out.labels.app: invalid template "{{ app": unclosed "{{" at 0']],
    ['a malformed label key template', 'labels."{{ k" = "v"', ['sinks.out.labels.{{ k: label name: invalid template "{{ k": unclosed "{{" at 0']],
    ['a malformed tenant_id template', 'labels.a = "b"\ntenant_id = "{{ }}"', ['sinks.out.tenant_id: invalid template "{{ }}": empty field reference at 0']],
    [
      'avro without a schema',
      'labels.a = "b"\nencoding.codec = "avro"',
      ['sinks.out.encoding.avro: missing required option: codec "avro" needs avro.schema, the JSON of an Avro record schema'],
    ],
    ['avro with a schema that is not JSON', 'labels.a = "b"\nencoding.codec = "avro"\nencoding.avro.schema = "{nope"', ['sinks.out.encoding.avro.schema: not a usable Avro schema: not JSON']],
    [
      'avro with a schema that is not a record',
      'labels.a = "b"\nencoding.codec = "avro"\nencoding.avro.schema = \'"string"\'',
      ['sinks.out.encoding.avro.schema: not a usable Avro schema: must be a record schema; got a string schema; expected the JSON of a record schema such as'],
    ],
    ['avro.schema with another codec', 'labels.a = "b"\nencoding.avro.schema = "{}"', ['sinks.out.encoding.avro: applies only when codec is "avro" (codec is "json")']],
    ['a codec the sink does not have', 'labels.a = "b"\nencoding.codec = "ndjson"', ['sinks.out.encoding.codec: must be one of "avro", "gelf", "json", "logfmt", "native", "native_json", "raw_message", "text"; got "ndjson"']],
    ['no codec', 'labels.a = "b"\n[sinks.out.encoding]\nonly_fields = ["message"]', ['sinks.out.encoding.codec: missing required option']],
    ['an only_fields entry that is not a path', 'labels.a = "b"\nencoding.only_fields = ["a..b"]', ['sinks.out.encoding.only_fields[0]: each only_fields entry must be a field path']],
    ['a compression the sink does not have', 'labels.a = "b"\ncompression = "zstd"', ["sinks.out.compression: must be one of \"snappy\", \"gzip\", \"zlib\", \"none\"; got \"zstd\""]],
    ['an unknown out_of_order_action', 'labels.a = "b"\nout_of_order_action = "sort"', ['sinks.out.out_of_order_action: must be one of "drop", "rewrite_timestamp", "accept"; got "sort"']],
    ['an endpoint that is not http', 'labels.a = "b"\nendpoint = "ftp://127.0.0.1"', ['sinks.out.endpoint: must be an http or https URL']],
    ['endpoint credentials and auth', 'labels.a = "b"\nendpoint = "http://u:p@127.0.0.1:3100"\nauth.strategy = "bearer"\nauth.token = "t"', ['sinks.out.endpoint: credentials in the endpoint URL and auth must not both be set']],
    ['basic auth without a password', 'labels.a = "b"\nauth.strategy = "basic"\nauth.user = "u"', ['sinks.out.auth.password: missing required option: strategy "basic" needs a password']],
    ['an unknown auth strategy', 'labels.a = "b"\nauth.strategy = "digest"', [/sinks\.out\.auth\.strategy: .*"basic".*"bearer"/]],
    ['tls.enabled', 'labels.a = "b"\ntls.enabled = true', ['sinks.out.tls: tls.enabled does not apply']],
    ['a batch.timeout_secs of 0', 'labels.a = "b"\nbatch.timeout_secs = 0', ['sinks.out.batch.timeout_secs: must be greater than 0']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) {
        if (typeof e === 'string') expect(out).to.include(e);
        else expect(out).to.match(e);
      }
    });
  }

  it('weir validate passes templated label names, * expansions and an avro record schema', async () => {
    const { code, out } = await validate(
      'labels."{{ kind }}_name" = "x"\nlabels."pod_*" = "{{ kubernetes.pod_labels }}"\nlabels."*" = "{{ extra }}"\nencoding.codec = "avro"\nencoding.avro.schema = \'{"type":"record","name":"e","fields":[{"name":"message","type":"string"}]}\'',
    );
    expect(code, out).to.equal(0);
  });
});
