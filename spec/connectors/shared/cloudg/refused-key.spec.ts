/**
 * A service-account key the token endpoint refuses for good (`invalid_grant`: it knows no such
 * key), through the daemon: without `--require-healthy` the health check fails and weir goes on,
 * and once stdin ends the events are rejected (not retried for ever) and weir exits.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWeir } from '../../../helpers/weir-process.js';
import { type GoogleTokenPeer, generateServiceAccount, startGoogleTokenPeer } from '../../../peers/google-token.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-cloudg-refused-'));
/** Far beyond a clean exit even on a loaded machine; only a run that would never end reaches it. */
const HANG_MS = 90_000;

describe('connectors/shared/cloudg: a key the token endpoint refuses, in the daemon (stdin -> cloudg sink)', function () {
  this.timeout(2 * HANG_MS);
  let tokens: GoogleTokenPeer;
  let keyFile: string;
  before(async () => {
    tokens = await startGoogleTokenPeer();
    tokens.trust(generateServiceAccount());
    // same e-mail, another key: the endpoint cannot verify the signature and answers invalid_grant
    keyFile = generateServiceAccount().writeKeyFile(tmp, tokens.tokenUri, 'unknown-key.json');
  });
  after(() => tokens.close());

  const sinks = {
    cloudg_pubsub: (endpoint: string) => `project = "weir-test"\ntopic = "weir-topic"\nendpoint = "${endpoint}"`,
    cloudg_object_storage: (endpoint: string) => `bucket = "weir-bucket"\nendpoint = "${endpoint}"`,
  };
  for (const [type, options] of Object.entries(sinks)) {
    it(`${type}: stdin closed, the events are rejected and counted, and weir exits`, async () => {
      const cfg = join(tmp, `${type}.toml`);
      writeFileSync(
        cfg,
        `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "${type}"\ninputs = ["in"]\ncredentials_path = "${keyFile}"\n${options(tokens.http.url)}\nencoding.codec = "text"\nbatch.max_events = 2\n`,
      );
      const before = tokens.refusals.length;
      const requests = tokens.http.requests.length;
      const weir = startWeir(['--config', cfg], { input: 'a\nb\nc\nd\ne\n', env: { CLOUDG_APPLICATION_CREDENTIALS: '', GOOGLE_APPLICATION_CREDENTIALS: '' } });
      let hang: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([weir.exited, new Promise<'hung'>((r) => (hang = setTimeout(() => r('hung'), HANG_MS)))]);
      clearTimeout(hang);
      if (outcome === 'hung') weir.child.kill('SIGKILL');
      expect(outcome, weir.stderr()).to.deep.equal({ code: 0, signal: null });
      const stderr = weir.stderr();
      expect(stderr).to.include('Healthcheck failed.').and.include('invalid_grant');
      // five lines in, none sent, all five rejected: discarded, and lost in the final account with the reason
      expect(stderr).to.match(/sink\s+out\s+received=5 sent=0 discarded=5/);
      expect(stderr).to.match(/\n5 events lost\n\s+5 rejected by the sink: sink "out"/);
      // nothing reached the service without a token; the token endpoint was asked by the health
      // check and at most once per batch of two (concurrent batches may share one exchange), never again
      expect(tokens.http.requests.slice(requests).every((r) => r.method === 'POST' && r.path === '/token')).to.equal(true);
      expect(tokens.refusals.length - before).to.be.within(2, 1 + 3);
    });
  }
});
