import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { runWeir } from '../../../helpers/weir-process.js';
import { type GcsPeer, startGcs } from '../../../peers/gcs.js';
import { type GoogleTokenPeer, generateServiceAccount, startGoogleTokenPeer } from '../../../peers/google-token.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-gcs-daemon-'));

describe('connectors/sinks/cloudg_object_storage: the daemon (stdin -> cloudg_object_storage)', function () {
  this.timeout(120_000);
  let tokens: GoogleTokenPeer;
  let gcs: GcsPeer;
  let keyFile: string;
  before(async () => {
    tokens = await startGoogleTokenPeer();
    const account = generateServiceAccount();
    tokens.trust(account);
    keyFile = account.writeKeyFile(tmp, tokens.tokenUri);
    gcs = await startGcs(tokens);
  });
  after(async () => {
    await gcs.close();
    await tokens.close();
  });

  it('CLOUDG_APPLICATION_CREDENTIALS, --require-healthy: every line in gzip objects, flushed at the end of input', async () => {
    const cfg = join(tmp, 'gcs.toml');
    writeFileSync(cfg, `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudg_object_storage"\ninputs = ["in"]\nbucket = "weir-bucket"\nendpoint = "${gcs.url}"\nkey_prefix = "daemon/"\ncompression = "gzip"\nencoding.codec = "text"\n`);
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
    const r = await runWeir(['--config', cfg, '--require-healthy'], { input: `${lines.join('\n')}\n`, env: { CLOUDG_APPLICATION_CREDENTIALS: keyFile } });
    expect(r.code, r.stderr).to.equal(0);
    expect(gcs.http.requests[0]).to.include({ method: 'HEAD', path: '/weir-bucket/' });
    const objects = [...gcs.objects.values()];
    expect(objects.every((o) => /^daemon\/\d+-[0-9a-f-]{36}\.log\.gz$/.test(o.name) && o.contentEncoding === 'gzip')).to.equal(true);
    const got = objects.flatMap((o) => gunzipSync(o.raw).toString().split('\n'));
    expect(got.sort()).to.deep.equal([...lines].sort());
  });

  it('--require-healthy exits non-zero for a bucket that does not exist, saying "bucket not found"', async () => {
    const cfg = join(tmp, 'missing.toml');
    writeFileSync(cfg, `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudg_object_storage"\ninputs = ["in"]\nbucket = "no-bucket"\nendpoint = "${gcs.url}"\ncredentials_path = "${keyFile}"\n`);
    const r = await runWeir(['--config', cfg, '--require-healthy'], { input: 'x\n' });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.include('Healthcheck failed.').and.include('bucket not found');
  });
});
