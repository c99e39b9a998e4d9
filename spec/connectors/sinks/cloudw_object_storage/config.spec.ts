import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { CloudwObjectStorageConfig } from '../../../../connectors/sinks/cloudw_object_storage/config.js';
import { objectHeaders, taggingOf } from '../../../../connectors/sinks/cloudw_object_storage/headers.js';

const base = { type: 'cloudw_object_storage', inputs: ['in'], bucket: 'logs', encoding: { codec: 'json' } };
const issues = (extra: Record<string, unknown>) => (v.safeParse(CloudwObjectStorageConfig, { ...base, ...extra }).issues ?? []).map((i) => `${v.getDotPath(i)}: ${i.message}`);

const dir = mkdtempSync(join(tmpdir(), 'weir-s3-validate-'));
let n = 0;
/** `weir validate` on a TOML config with this sink's lines; exit code and report. */
async function validate(sinkLines: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, `[sources.in]\ntype = "demo_logs"\nformat = "json"\n\n[sinks.out]\ntype = "cloudw_object_storage"\ninputs = ["in"]\nencoding.codec = "json"\n${sinkLines}`);
  let out = '';
  const sink = new Writable({ write(chunk, _e, cb) { out += chunk; cb(); } });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
  return { code, out };
}

describe('connectors/sinks/cloudw_object_storage: options', () => {
  it("defaults are the spec's", () => {
    const c = v.parse(CloudwObjectStorageConfig, base);
    expect(c).to.deep.include({
      key_prefix: 'date=%F/',
      filename_time_format: '%s',
      filename_append_uuid: true,
      content_type: 'text/x-log',
      compression: 'gzip',
      storage_class: 'STANDARD',
      force_path_style: true,
    });
    expect(c.filename_extension).to.equal(undefined);
    expect(c.acl).to.equal(undefined); // the service applies `private`
    expect(c.batch).to.deep.include({ max_bytes: 10_000_000, timeout_secs: 300 });
    expect(c.request).to.deep.include({ rate_limit_num: 9.223372036854776e18, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 3600, timeout_secs: 60 });
    expect(c.request.adaptive_concurrency).to.deep.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.multipart).to.deep.equal({ threshold_bytes: 16 * 1024 * 1024, part_size_bytes: 8 * 1024 * 1024 });
    expect(c.auth).to.deep.include({ load_timeout_secs: 5 });
  });

  it('bucket: no scheme, no trailing slash, no folder', () => {
    expect(issues({ bucket: 's3://logs' })).to.deep.equal(['bucket: must be the bucket name only, without a scheme such as "s3://"']);
    expect(issues({ bucket: 'logs/' })[0]).to.match(/^bucket: must be the bucket name only, without a trailing "\/"/);
    expect(issues({ bucket: 'logs/app' })[0]).to.match(/^bucket: .*key_prefix/);
    expect(issues({ bucket: '' })[0]).to.match(/^bucket: must not be empty/);
  });

  it('enums, contradictions and limits at their own paths', () => {
    expect(issues({ acl: 'project-private' })[0]).to.match(/^acl: /);
    expect(issues({ storage_class: 'COLDLINE' })[0]).to.match(/^storage_class: /);
    expect(issues({ server_side_encryption: 'aws:kms:dsse' })[0]).to.match(/^server_side_encryption: /);
    expect(issues({ compression: 'zstd' })[0]).to.match(/^compression: /);
    expect(issues({ encoding: { codec: 'avro' } })[0]).to.match(/^encoding.codec: /);
    expect(issues({ ssekms_key_id: 'k' })).to.deep.equal(['ssekms_key_id: applies only when server_side_encryption is "aws:kms"']);
    expect(issues({ ssekms_key_id: 'k', server_side_encryption: 'AES256' })).to.have.length(1);
    expect(issues({ ssekms_key_id: 'k', server_side_encryption: 'aws:kms' })).to.deep.equal([]);
    expect(issues({ acl: 'private', grant_read: 'id="x"' })).to.deep.equal(['acl: a canned acl and grant_read must not both be set']);
    expect(issues({ multipart: { part_size_bytes: 1024 } })[0]).to.match(/^multipart.part_size_bytes: must be at least 5 MiB/);
    expect(issues({ multipart: { threshold_bytes: 6 * 1024 * 1024 } })).to.deep.equal(['multipart.threshold_bytes: must be at least multipart.part_size_bytes']);
    expect(issues({ framing: { method: 'character_delimited' } })[0]).to.match(/^framing.character_delimited.delimiter: /);
    expect(issues({ framing: { method: 'octet_counting' } })[0]).to.match(/^framing.method: /);
    expect(issues({ batch: { max_events: 0 } })[0]).to.match(/^batch.max_events: /);
    expect(issues({ key_prefix: '{{ a' })[0]).to.match(/^key_prefix: invalid template/);
    expect(issues({ tags: { '': 'x' } })[0]).to.match(/^tags/);
    expect(issues({ endpoint: 'ftp://x' })[0]).to.match(/^endpoint: /);
    expect(issues({ buffer: { type: 'disk_v1', max_size: 268435488 } })).to.deep.equal([]);
    expect(issues({ request: { headers: { 'x-a': 'b' } } })).to.deep.equal(['request.headers: does not apply to this sink: its requests are the service API calls']);
  });

  it('tags become the x-amz-tagging query string, keys sorted and escaped; headers follow the options', () => {
    expect(taggingOf({ b: '2', a: 'x y', 'k&': '=' })).to.equal('a=x%20y&b=2&k%26=%3D');
    expect(taggingOf({})).to.equal(undefined);
    const c = v.parse(CloudwObjectStorageConfig, { ...base, compression: 'none' });
    expect(objectHeaders(c, undefined)).to.deep.equal({ Bucket: 'logs', ContentType: 'text/x-log', StorageClass: 'STANDARD' });
  });

  it('weir validate names the option: a bucket with a scheme or trailing slash, ssekms_key_id without aws:kms', async () => {
    const scheme = await validate('bucket = "s3://logs"\n');
    expect(scheme.code).to.not.equal(0);
    expect(scheme.out).to.include('sinks.out.bucket: must be the bucket name only, without a scheme');
    const slash = await validate('bucket = "logs/"\n');
    expect(slash.out).to.include('sinks.out.bucket: must be the bucket name only, without a trailing "/"');
    const kms = await validate('bucket = "logs"\nssekms_key_id = "k"\n');
    expect(kms.out).to.include('sinks.out.ssekms_key_id: applies only when server_side_encryption is "aws:kms"');
    const missing = await validate('');
    expect(missing.out).to.include('sinks.out.bucket');
    const ok = await validate('bucket = "logs"\nregion = "eu-west-1"\n');
    expect(ok.code, ok.out).to.equal(0);
  });

  it('config/examples/cloudw_object_storage.toml validates', async () => {
    const file = join(import.meta.dirname ?? '.', '../../../../config/examples/cloudw_object_storage.toml');
    let out = '';
    const sink = new Writable({ write(chunk, _e, cb) { out += chunk; cb(); } });
    const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
    expect(code, out).to.equal(0);
  });

  it('is in the catalog under its name and Vector\'s (aws_s3)', async () => {
    const { catalog } = await import('../../../../connectors/index.js');
    expect(catalog.find('sink', 'cloudw_object_storage')?.type).to.equal('cloudw_object_storage');
    expect(catalog.find('sink', 'aws_s3')?.type).to.equal('cloudw_object_storage');
  });
});
