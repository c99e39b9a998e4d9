import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { catalog } from '../../../../connectors/index.js';
import { CloudgObjectStorageConfig, DEFAULT_ENDPOINT } from '../../../../connectors/sinks/cloudg_object_storage/config.js';
import { cloudgObjectStorageSink } from '../../../../connectors/sinks/cloudg_object_storage/index.js';

const base = { type: 'cloudg_object_storage', inputs: ['in'], bucket: 'weir-logs' };

const dir = mkdtempSync(join(tmpdir(), 'weir-gcs-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  const bucket = sink.includes('bucket =') ? '' : 'bucket = "weir-logs"\n';
  writeFileSync(file, `[sources.s]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudg_object_storage"\ninputs = ["s"]\n${bucket}${sink}\n`);
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

describe('connectors/sinks/cloudg_object_storage: config', () => {
  it('has the documented defaults (request, batch)', () => {
    const c = v.parse(CloudgObjectStorageConfig, base);
    expect(c.endpoint).to.equal(DEFAULT_ENDPOINT).and.equal('https://storage.googleapis.com');
    expect(c).to.include({ key_prefix: 'date=%F/', filename_time_format: '%s', filename_append_uuid: true, storage_class: 'STANDARD', compression: 'none' });
    expect(c.acl).to.equal(undefined);
    expect(c.filename_extension).to.equal(undefined);
    expect(c.encoding.codec).to.equal('ndjson');
    expect(c.metadata).to.deep.equal({});
    expect(c.batch).to.deep.equal({ max_bytes: 10_000_000, timeout_secs: 300 });
    expect(c.request).to.include({ rate_limit_num: 1000, rate_limit_duration_secs: 1, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 3600, timeout_secs: 60 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(catalog.find('sink', 'gcp_cloud_storage')).to.equal(cloudgObjectStorageSink);
  });

  it('accepts the full option set', () => {
    v.parse(CloudgObjectStorageConfig, {
      ...base,
      acl: 'public-read',
      credentials_path: '/etc/weir/key.json',
      api_key: 'AIza-x',
      endpoint: 'http://127.0.0.1:4443',
      encoding: { codec: 'text' },
      filename_append_uuid: false,
      filename_extension: 'txt',
      filename_time_format: '%Y%m%d-%H%M%S',
      key_prefix: 'app={{ app }}/%Y/',
      metadata: 'team:obs',
      storage_class: 'ARCHIVE',
      compression: 'gzip',
      resumable_threshold_bytes: 1_000_000,
      resumable_chunk_bytes: 524_288,
      batch: { max_bytes: 1_000_000, timeout_secs: 60 },
      request: { rate_limit_num: 10 },
      tls: { verify_certificate: false },
      healthcheck: false,
    });
  });

  const cases: [string, string, string[]][] = [
    ['an acl outside its values', 'acl = "everyone"', ['sinks.out.acl', '"project-private"']],
    ['a storage class outside its values', 'storage_class = "COLD"', ['sinks.out.storage_class', '"STANDARD"']],
    ['a codec the sink does not offer', 'encoding.codec = "native"', ['sinks.out.encoding.codec', '"ndjson", "text"']],
    ['a framing the sink does not offer', 'framing.method = "octet_counting"', ['sinks.out.framing.method']],
    ['metadata that is not key:value pairs', 'metadata = "team"', ['sinks.out.metadata: "team" is not a key:value pair']],
    ['a metadata name that is no header name', 'metadata = { "a b" = "x" }', ['sinks.out.metadata: metadata names must be valid header names']],
    ['a bucket name the service refuses', 'bucket = "Weir_Logs"', ['sinks.out.bucket: must be a bucket name']],
    ['a key_prefix that does not compile', 'key_prefix = "{{ app"', ['sinks.out.key_prefix: invalid template']],
    ['a filename_time_format with an unknown item', 'filename_time_format = "%Q"', ['sinks.out.filename_time_format']],
    ['a resumable chunk that is not a 256 KiB multiple', 'resumable_chunk_bytes = 1000', ['sinks.out.resumable_chunk_bytes: must be a multiple of 262144']],
    ['compression the sink does not offer', 'compression = "zlib"', ['sinks.out.compression', '"none", "gzip"']],
    ['an api_key that is not URL-safe base64', 'api_key = "a b"', ['sinks.out.api_key: must be URL-safe base64']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) expect(out).to.include(e);
    });
  }
});
